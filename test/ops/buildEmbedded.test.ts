import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';

const run = promisify(execFile);

/** `slipway db build-embedded` builds FerretDB from the pinned module into TOOLS_DIR (CI runs it before the tests). */
describe('slipway db build-embedded', () => {
  it('builds the pinned FerretDB into TOOLS_DIR, reports it as JSON, and the binary is that version', async () => {
    const toolsDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-tools-'));
    const env = { ...process.env, TOOLS_DIR: toolsDir, LOG_LEVEL: 'warn' };
    const { stdout } = await run(process.execPath, ['bin/slipway.js', 'db', 'build-embedded', '--json'], { cwd: PROJECT_ROOT, env, timeout: 600_000 });
    const result = JSON.parse(stdout) as { ok: boolean; binary: string; version: string };
    expect(result).toMatchObject({ ok: true, version: 'v1.24.2', binary: path.join(toolsDir, 'bin', 'ferretdb-v1.24.2') });
    const { stdout: version } = await run(result.binary, ['--version']);
    expect(version).toMatch(/^version: v1\.24\.2$/m);
    // A second run finds it cached.
    const again = JSON.parse((await run(process.execPath, ['bin/slipway.js', 'db', 'build-embedded', '--json'], { cwd: PROJECT_ROOT, env })).stdout) as { seconds: number };
    expect(again.seconds).toBe(0);
  }, 600_000);
});
