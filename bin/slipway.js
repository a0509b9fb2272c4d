#!/usr/bin/env node
// The admin CLI. Runs the TypeScript source directly (Node 24 strips types); see src/cli/main.ts.
import '../src/cli/main.ts';
