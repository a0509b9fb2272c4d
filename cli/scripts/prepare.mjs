#!/usr/bin/env node
/**
 * npm's `prepare` (run by `npm install` in this folder, and by `npm pack`): makes the CLI runnable here.
 *
 * 1. The TypeScript SDK it is built on (../sdk/typescript, linked into node_modules): built by its own
 *    prepare script when its dist/ is missing (npm may skip the scripts of linked packages).
 * 2. This folder's own dependencies, when npm did not install them (e.g. an install from elsewhere).
 * 3. tsc: src/ → dist/.
 *
 * Node ≥ 20, no dependencies of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');
const SDK_DIR = path.resolve(PACKAGE_DIR, '..', 'sdk', 'typescript');
const log = (message) => process.stderr.write(`@slipway/cli prepare: ${message}\n`);

function run(command, args, cwd, env = process.env) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env, shell: process.platform === 'win32' && !command.endsWith('.exe') });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// The outer npm's settings for this install must not leak into a nested one; where to fetch from should.
const keep = /^npm_config_(registry|@.*:registry|\/\/.*|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|no_proxy|cafile|ca|cert|key|strict_ssl|fetch_.*|offline|prefer_offline|prefer_online|loglevel|audit|fund|update_notifier)$/i;
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) || keep.test(name)));
const npm = process.env.npm_execpath && /\.c?js$/.test(process.env.npm_execpath) ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];

if (!existsSync(path.join(SDK_DIR, 'dist', 'index.js'))) {
  log(`building the SDK in ${SDK_DIR}`);
  run(process.execPath, [path.join(SDK_DIR, 'scripts', 'prepare.mjs')], SDK_DIR, cleanEnv);
}

const tsc = path.join(PACKAGE_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
const needed = ['typescript/bin/tsc', 'commander/package.json', '@slipway/sdk/package.json', 'oauth4webapi/package.json', '@types/node/package.json'];
if (needed.some((file) => !existsSync(path.join(PACKAGE_DIR, 'node_modules', file)))) {
  log('installing the dependencies in this folder (npm ci)');
  run(npm[0], [...npm[1], 'ci', '--include=dev', '--no-audit', '--no-fund', '--ignore-scripts'], PACKAGE_DIR, cleanEnv);
}
rmSync(path.join(PACKAGE_DIR, 'dist'), { recursive: true, force: true });
run(process.execPath, [tsc, '-p', 'tsconfig.json'], PACKAGE_DIR);
log('built dist/');
