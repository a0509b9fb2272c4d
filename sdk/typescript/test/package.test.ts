import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import type * as Sdk from '../src/index.ts';
import { harness } from './support/env.ts';

const run = promisify(execFile);
const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');

it('npm pack ships the built dist with types, README and LICENSE; the built code has no Node-only imports and works', async () => {
  // dist/ is built by scripts/test.sh; packing for real (with the prepare build) is test/install.test.ts.
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE_DIR, maxBuffer: 8 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { name: string; version: string; files: { path: string }[] }[];
  const { version } = JSON.parse(await readFile(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string };
  expect(packed).toMatchObject({ name: '@slipway/sdk', version });
  const files = packed!.files.map((f) => f.path);
  for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts', 'dist/resources/index.js', 'README.md', 'LICENSE', 'package.json']) expect(files).toContain(file);
  expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);

  const dist = path.join(PACKAGE_DIR, 'dist');
  const sources = (await readdir(dist, { recursive: true })).filter((f) => f.endsWith('.js'));
  for (const file of sources) {
    // Code only: doc comments may mention process.env in examples.
    const code = (await readFile(path.join(dist, file), 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    expect(code, file).not.toMatch(/from ['"]node:|require\(|\bprocess\.|\bBuffer\b/);
  }

  const built = (await import(path.join(dist, 'index.js'))) as typeof Sdk;
  const info = harness();
  const client = new built.Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key });
  expect((await client.projects.get(info.api_key.project_id)).id).toBe(info.api_key.project_id);
  expect((await client.deployments.list(info.api_key.project_id, { per_page: 1 })).pagination.per_page).toBe(1);
  await expect(client.projects.get('proj_missing')).rejects.toBeInstanceOf(built.NotFoundError);
  expect(built.ErrorCode.RequestAborted).toBe('request_aborted');
});
