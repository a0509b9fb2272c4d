import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { ferretdbPatchSet } from '../../src/db/embeddedFerretdb.ts';

const run = promisify(execFile);

/** `slipway db build-embedded` builds FerretDB from the pinned module, with Slipway's patches, into TOOLS_DIR (CI runs it before the tests). */
describe('slipway db build-embedded', () => {
  it('builds the pinned FerretDB with the patch set into TOOLS_DIR, reports it as JSON, and the binary is that version', async () => {
    const toolsDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-tools-'));
    const env = { ...process.env, TOOLS_DIR: toolsDir, LOG_LEVEL: 'warn' };
    const { stdout } = await run(process.execPath, ['bin/slipway.js', 'db', 'build-embedded', '--json'], { cwd: PROJECT_ROOT, env, timeout: 600_000 });
    const result = JSON.parse(stdout) as { ok: boolean; binary: string; version: string; patches: string[]; source: string };
    const patches = ferretdbPatchSet(PROJECT_ROOT);
    // The name says it is patched, and with which patch set: an unpatched or older build is not reused.
    expect(result).toMatchObject({ ok: true, version: 'v1.24.2', binary: path.join(toolsDir, 'bin', `ferretdb-v1.24.2-slipway.${patches.id}`) });
    expect(result.patches).toEqual((await readdir(path.join(PROJECT_ROOT, 'tools/ferretdb/patches'))).filter((f) => f.endsWith('.patch')).sort());
    expect(result.patches.length).toBeGreaterThanOrEqual(3);
    const { stdout: version } = await run(result.binary, ['--version']);
    expect(version).toMatch(/^version: v1\.24\.2$/m);
    // The source it was compiled from carries the patches (patch 1: the _id expression of the index).
    const metadata = await readFile(path.join(result.source, 'internal/backends/sqlite/metadata/metadata.go'), 'utf8');
    expect(metadata).toContain(`IDColumn = DefaultColumn + "->'_id'"`);
    expect(existsSync(path.join(result.source, 'internal/backends/sqlite/pushdown.go'))).toBe(true);
    // A second run finds it cached.
    const again = JSON.parse((await run(process.execPath, ['bin/slipway.js', 'db', 'build-embedded', '--json'], { cwd: PROJECT_ROOT, env })).stdout) as { seconds: number };
    expect(again.seconds).toBe(0);
  }, 600_000);
});
