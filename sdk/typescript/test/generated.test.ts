import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { harness } from './support/env.ts';

const run = promisify(execFile);
const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');

it('the checked-in generated types match what scripts/generate.sh makes from the live /openapi.json (no drift)', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-sdk-ts-gen-'));
  try {
    const output = path.join(dir, 'openapi.ts');
    await run('sh', [path.join(PACKAGE_DIR, 'scripts', 'generate.sh'), harness().base_url, output], { cwd: PACKAGE_DIR });
    const [fresh, checkedIn] = await Promise.all([readFile(output, 'utf8'), readFile(path.join(PACKAGE_DIR, 'src', 'generated', 'openapi.ts'), 'utf8')]);
    expect(fresh.length).toBeGreaterThan(1000);
    // On failure: run `sh scripts/generate.sh <base url>` against a current server and commit the result.
    expect(fresh === checkedIn, 'src/generated/openapi.ts is stale: regenerate it with scripts/generate.sh').toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
