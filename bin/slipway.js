#!/usr/bin/env node
// The admin CLI. Runs the TypeScript source directly, which needs Node.js 24 (it strips the types); see
// src/cli/main.ts. An older `node` would fail with ERR_UNKNOWN_FILE_EXTENSION ".ts", so this file,
// plain JavaScript, checks first and says what to do (exit 7, docs/OPERATIONS.md "Exit codes").
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `slipway: needs Node.js 24, this is ${process.version}; run it inside the Slipway checkout with \`npx slipway\` (npm puts the project's Node 24 first on PATH), or install Node.js 24.`,
  );
  process.exit(7);
}
await import('../src/cli/main.ts');
