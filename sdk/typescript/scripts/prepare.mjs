#!/usr/bin/env node
/**
 * npm's `prepare`: builds dist/ (tsc) whenever the package is installed from a checkout or packed.
 *
 * - `npm install` / `npm ci` in this folder, and `npm pack`: the dependencies are there; build.
 * - `npm install /path/to/slipway/sdk/typescript` from an app: npm links this folder without
 *   installing its dependencies, so this first installs them here from package-lock.json (`npm ci`,
 *   TypeScript included), then builds. The app then imports dist/ and, through the link, oauth4webapi.
 *
 * Node ≥ 20, no dependencies of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');
const log = (message) => process.stderr.write(`@slipway/sdk prepare: ${message}\n`);

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: PACKAGE_DIR, stdio: ['ignore', 'inherit', 'inherit'], env, shell: process.platform === 'win32' && !command.endsWith('.exe') });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const tsc = path.join(PACKAGE_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
const oauth4webapi = path.join(PACKAGE_DIR, 'node_modules', 'oauth4webapi', 'package.json');
if (!existsSync(tsc) || !existsSync(oauth4webapi)) {
  log('installing the build dependencies in this folder (npm ci)');
  // The outer npm's settings for the app (its prefix, omit=dev, …) must not leak into this install;
  // where to fetch from (registry, proxy, cache, certificates) should.
  const keep = /^npm_config_(registry|@.*:registry|\/\/.*|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|no_proxy|cafile|ca|cert|key|strict_ssl|fetch_.*|offline|prefer_offline|prefer_online|loglevel|audit|fund|update_notifier)$/i;
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) || keep.test(name)));
  const args = ['ci', '--include=dev', '--no-audit', '--no-fund', '--ignore-scripts'];
  // The npm that runs this script (npm sets npm_execpath), else the one on PATH.
  const npm = process.env.npm_execpath;
  if (npm && /\.c?js$/.test(npm)) run(process.execPath, [npm, ...args], env);
  else run('npm', args, env);
}
rmSync(path.join(PACKAGE_DIR, 'dist'), { recursive: true, force: true });
run(process.execPath, [tsc, '-p', 'tsconfig.build.json']);
log('built dist/');
