import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FERRETDB_VERSION, ensureFerretdbBinary, freePort, startFerretdb } from '../../src/db/embeddedFerretdb.ts';

/** The bare oidc-provider baseline's static clients (bench/lib/oidcBaselineServer.ts). */
export const BARE_CONFIDENTIAL = { clientId: 'bench-confidential', clientSecret: 'bench-confidential-secret-0123456789abcdef' };
export const BARE_PUBLIC = { clientId: 'bench-public' };

export interface BaselineProcess {
  url: string;
  pid: number;
  /** Its database's process (the fair peer's embedded FerretDB), whose CPU is measured per request too. */
  databasePid?: number;
  stop(): Promise<void>;
}

/** Starts bench/lib/baselineServer.ts (the /v1 baseline) as a child process and waits until it answers. */
export async function startBaseline(env: { uri: string; db: string; accountId: string; userId: string }): Promise<BaselineProcess> {
  return await startBaselineScript('bench/lib/baselineServer.ts', {
    BASELINE_MONGODB_URI: env.uri,
    BASELINE_DB: env.db,
    BASELINE_ACCOUNT_ID: env.accountId,
    BASELINE_USER_ID: env.userId,
  });
}

/** Starts bench/lib/oidcBaselineServer.ts (bare oidc-provider, in-memory adapter) and waits until it answers. */
export async function startOidcBaseline(): Promise<BaselineProcess> {
  return await startBaselineScript('bench/lib/oidcBaselineServer.ts', {});
}

/**
 * The fair peer: the same oidc-provider on a plain MongoDB adapter (bench/lib/peerMongoAdapter.ts), on an
 * embedded FerretDB of its own started from the project's binary (FERRETDB_BINARY when set, as Slipway's),
 * so neither shares the other's database process.
 */
export async function startOidcPeer(): Promise<BaselineProcess> {
  const binary = process.env.FERRETDB_BINARY || (await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-peer-'));
  const synchronous = process.env.EMBEDDED_SQLITE_SYNCHRONOUS === 'full' ? 'full' : 'normal';
  const ferretdb = await startFerretdb({ binary, dataDir: dir, synchronous });
  const stopDatabase = async () => {
    await ferretdb.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const peer = await startBaselineScript('bench/lib/oidcBaselineServer.ts', { BASELINE_MONGODB_URI: ferretdb.uri, BASELINE_DB: 'peer' });
    return {
      ...peer,
      databasePid: ferretdb.pid,
      async stop() {
        await peer.stop();
        await stopDatabase();
      },
    };
  } catch (err) {
    await stopDatabase();
    throw err;
  }
}

async function startBaselineScript(script: string, extraEnv: Record<string, string>): Promise<BaselineProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      NODE_ENV: 'production',
      BASELINE_PORT: String(port),
      // e.g. BENCH_BASELINE_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the baselines as the server.
      ...(process.env.BENCH_BASELINE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_BASELINE_NODE_OPTIONS } : {}),
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the baseline server exited with code ${child.exitCode}`);
    const up = await fetch(`${url}/healthz`).then(
      async (r) => {
        await r.body?.cancel();
        return r.ok;
      },
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('the baseline server did not start within 30 s');
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
