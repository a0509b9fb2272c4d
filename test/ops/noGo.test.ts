import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { tempDir } from '../support/tempDirs.ts';

/**
 * Issue 2: where Go is missing and no MONGODB_URI is set, `npm start` says exactly what to do instead
 * (set MONGODB_URI, or docker compose up) and exits non-zero, rather than failing obscurely.
 */
describe('npm start without Go and without MONGODB_URI', () => {
  it('explains the alternatives and exits with code 3, leaving nothing running', async () => {
    const tmp = tempDir('slipway-nogo-');
    // A PATH with only this Node's directory: no `go` can be found.
    const nodeOnly = tempDir('slipway-nogo-bin-');
    const env: NodeJS.ProcessEnv = {
      PATH: `${path.dirname(process.execPath)}:${nodeOnly}`,
      HOME: tmp,
      PORT: String(await freePort()),
      DATA_DIR: path.join(tmp, 'data'),
      KEYS_DIR: path.join(tmp, 'keys'),
      TOOLS_DIR: path.join(tmp, 'tools'),
    };
    const child = spawn(process.execPath, ['src/main.ts'], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));

    expect(code).toBe(3);
    expect(stderr).toMatch(/`go` is not on PATH/);
    expect(stderr).toMatch(/MONGODB_URI=mongodb:\/\//);
    expect(stderr).toMatch(/docker compose up/);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    // Nothing was built or started on the way out.
    expect(await readdir(tmp)).not.toContain('tools');
  });
});
