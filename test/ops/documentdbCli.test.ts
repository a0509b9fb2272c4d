import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { documentdbBuildId } from '../../src/db/documentdb.ts';
import { runNode } from '../support/processes.ts';
import { tempDir } from '../support/tempDirs.ts';

/**
 * `slipway db documentdb start|stop --dir DIR` (src/db/documentdb.ts). Starting one builds PostgreSQL
 * extensions and FerretDB 2 (minutes on a cold machine): CI does it, and runs the server suite on it
 * (vitest.documentdb.config.ts). Here: what decides a rebuild, the checksums the build checks first, and
 * the command's refusals and its stop where nothing runs, none of which builds anything.
 */

/** A copy of what the build id and the build script read: the vendored folder and the script. */
function copyOfBuildInputs(): string {
  const root = tempDir('slipway-documentdb-inputs-');
  cpSync(path.join(PROJECT_ROOT, 'third_party', 'documentdb'), path.join(root, 'third_party', 'documentdb'), { recursive: true });
  mkdirSync(path.join(root, 'scripts'));
  cpSync(path.join(PROJECT_ROOT, 'scripts', 'documentdb-build.sh'), path.join(root, 'scripts', 'documentdb-build.sh'));
  return root;
}

describe('the DocumentDB build', () => {
  it('is keyed by the vendored archives, their checksums and the build script: the same inputs, the same id; any change, another', () => {
    const root = copyOfBuildInputs();
    const id = documentdbBuildId(root);
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(documentdbBuildId(PROJECT_ROOT)).toBe(id);

    const script = path.join(root, 'scripts', 'documentdb-build.sh');
    writeFileSync(script, `${readFileSync(script, 'utf8')}\n# changed\n`);
    const afterScript = documentdbBuildId(root);
    expect(afterScript).not.toBe(id);

    const archive = path.join(root, 'third_party', 'documentdb', 'pg_cron-1.6.3.tgz');
    const bytes = readFileSync(archive);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(archive, bytes);
    expect(documentdbBuildId(root)).not.toBe(afterScript);
  });

  it('checks every archive against SHA256SUMS before extracting anything, and stops at a mismatch', () => {
    const root = copyOfBuildInputs();
    const archive = path.join(root, 'third_party', 'documentdb', 'pgvector-0.8.0.tgz');
    const bytes = readFileSync(archive);
    bytes[100] ^= 0xff;
    writeFileSync(archive, bytes);
    const stage = path.join(tempDir('slipway-documentdb-stage-'), 'stage');
    // PG_CONFIG pointing at `true`: the script gets past its first check without PostgreSQL installed.
    const run = spawnSync('bash', [path.join(root, 'scripts', 'documentdb-build.sh'), stage], { encoding: 'utf8', env: { ...process.env, PG_CONFIG: '/bin/true' } });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/pgvector-0\.8\.0\.tgz: FAILED/);
    expect(run.stderr).not.toMatch(/documentdb-build: pg_cron/);

    const intact = spawnSync('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: path.join(PROJECT_ROOT, 'third_party', 'documentdb'), encoding: 'utf8' });
    expect(intact.status, intact.stdout + intact.stderr).toBe(0);
    expect(intact.stdout.trim().split('\n')).toHaveLength(3);
  });
});

describe('slipway db documentdb', () => {
  const slipway = (args: string[]) => runNode(['bin/slipway.js', ...args], { LOG_LEVEL: 'warn' });

  it('refuses an unknown action or a missing --dir as usage errors (exit 2, JSON under --json)', async () => {
    const unknown = await slipway(['db', 'documentdb', 'restart', '--dir', tempDir('slipway-documentdb-'), '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({ code: 'usage' });
    expect(unknown.stderr).toMatch(/start, stop/);

    const noDir = await slipway(['db', 'documentdb', 'start', '--json']);
    expect(noDir.code).toBe(2);
    expect(JSON.parse(noDir.stderr).error.message).toMatch(/--dir/);
  });

  it('stop where nothing was started says so and succeeds', async () => {
    const dir = tempDir('slipway-documentdb-');
    const stopped = await slipway(['db', 'documentdb', 'stop', '--dir', dir, '--json']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual({ ok: true, stopped: [] });
    const human = await slipway(['db', 'documentdb', 'stop', '--dir', dir]);
    expect(human.stdout.trim()).toBe('nothing was running');
  });
});
