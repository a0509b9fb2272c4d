import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { tempDir } from '../support/tempDirs.ts';
import { runNode, spawnNode, waitFor, type NodeProcess } from '../support/processes.ts';

let proc: NodeProcess | undefined;

afterAll(async () => {
  if (proc && proc.child.exitCode === null) {
    proc.child.kill('SIGTERM');
    await proc.exited(10_000).catch(() => proc!.kill());
  }
});

describe('npm run build', () => {
  it('produces a dist/ that runs: the same server, its pages and their stylesheets', async () => {
    const build = await runNode(['scripts/build.ts'], {}, 120_000);
    expect(build.code, build.stderr + build.stdout).toBe(0);

    const keysDir = tempDir('slipway-test-keys-');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    proc = spawnNode(['dist/main.js'], { PORT: String(port), MONGODB_URI: inject('mongodbUri'), MONGODB_DB: `t_dist_${port}`, KEYS_DIR: keysDir, LOG_LEVEL: 'info' });
    await waitFor(
      `${base}/readyz`,
      async () => {
        if (proc!.child.exitCode !== null) throw new Error(`exited with ${proc!.child.exitCode}: ${proc!.stderr()}${proc!.stdout()}`);
        const response = await fetch(`${base}/readyz`).catch(() => undefined);
        await response?.body?.cancel();
        return response?.status === 200;
      },
      30_000,
    );
    const discovery = (await (await fetch(`${base}/oauth/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe(`${base}/oauth`);
    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    const stylesheet = /href="(\/[^"]+\.css)"/.exec(await docs.text())?.[1];
    expect(stylesheet).toBeDefined();
    const css = await fetch(`${base}${stylesheet}`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/text\/css/);
    expect((await css.text()).length).toBeGreaterThan(100);
  });
});
