import { describe, expect, inject, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { tempDir } from '../support/tempDirs.ts';
import { runNode, spawnNode, waitFor, stoppedAfterEach } from '../support/processes.ts';

const started = stoppedAfterEach();

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('PUBLIC_URL', () => {
  it('defaults to the loopback host and port actually served', () => {
    expect(loadConfig({ env: {} }).publicUrl).toBe('http://127.0.0.1:3000');
    const moved = loadConfig({ env: { PORT: '3999' } });
    expect(moved.publicUrl).toBe('http://127.0.0.1:3999');
    expect(moved.issuer).toBe('http://127.0.0.1:3999/oauth');
    expect(moved.apiAudience).toBe('http://127.0.0.1:3999/v1');
    expect(loadConfig({ env: { HOST: 'localhost', PORT: '4000' } }).publicUrl).toBe('http://localhost:4000');
    expect(loadConfig({ env: { HOST: '::1', PORT: '4000' } }).publicUrl).toBe('http://[::1]:4000');
  });

  it('must be set when the server listens beyond loopback, and be https there', () => {
    expect(problemsOf({ HOST: '0.0.0.0' })).toEqual([expect.stringMatching(/^publicUrl \(env PUBLIC_URL\): must be set when HOST \(0\.0\.0\.0\) is not a loopback address/)]);
    expect(problemsOf({ PUBLIC_URL: 'http://slipway.example.com' })).toEqual([expect.stringMatching(/^publicUrl \(env PUBLIC_URL\): must be https unless it names a loopback host/)]);
    expect(problemsOf({ HOST: '0.0.0.0', PUBLIC_URL: 'http://10.1.2.3:3000' })).toHaveLength(1);
    expect(problemsOf({ PORT: '0' })).toEqual([expect.stringMatching(/must be set when PORT is 0/)]);
    // Accepted: https anywhere, http on loopback (a container publishing its port to this machine).
    expect(loadConfig({ env: { HOST: '0.0.0.0', PUBLIC_URL: 'https://slipway.example.com/' } }).issuer).toBe('https://slipway.example.com/oauth');
    expect(loadConfig({ env: { HOST: '0.0.0.0', PUBLIC_URL: 'http://localhost:3000' } }).publicUrl).toBe('http://localhost:3000');
  });

  it('npm start with PORT alone serves its issuer, discovery and redirects on that port', async () => {
    const keysDir = tempDir('slipway-test-keys-');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = spawnNode(['src/main.ts'], { PORT: String(port), MONGODB_URI: inject('mongodbUri'), MONGODB_DB: `t_port_${port}`, KEYS_DIR: keysDir, LOG_LEVEL: 'info' });
    started.push(proc);
    await waitFor(
      `${base}/readyz`,
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode}: ${proc.stderr()}${proc.stdout()}`);
        const response = await fetch(`${base}/readyz`).catch(() => undefined);
        await response?.body?.cancel();
        return response?.status === 200;
      },
      30_000,
    );
    const discovery = (await (await fetch(`${base}/oauth/.well-known/openid-configuration`)).json()) as Record<string, string>;
    expect(discovery.issuer).toBe(`${base}/oauth`);
    expect(discovery.token_endpoint).toBe(`${base}/oauth/token`);
    expect(discovery.authorization_endpoint).toBe(`${base}/oauth/authorize`);
    const login = await fetch(`${base}/dashboard`, { redirect: 'manual' });
    await login.body?.cancel();
    expect(login.headers.get('location') ?? '').not.toContain(':3000');
  });

  it('npm start refuses to start on plain http beyond loopback, with the reason', async () => {
    const result = await runNode(['src/main.ts'], { HOST: '0.0.0.0', PUBLIC_URL: 'http://slipway.example.com', MONGODB_URI: 'mongodb://127.0.0.1:9/' }, 15_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/publicUrl \(env PUBLIC_URL\): must be https unless it names a loopback host/);
    expect(result.stdout).not.toContain('slipway listening');
  });
});
