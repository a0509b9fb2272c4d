import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { freePort } from '../../src/db/embeddedFerretdb.ts';

export interface BaselineProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts bench/lib/baselineServer.ts as a child process and waits until it answers. */
export async function startBaseline(env: { uri: string; db: string; accountId: string; userId: string }): Promise<BaselineProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bench/lib/baselineServer.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      NODE_ENV: 'production',
      BASELINE_PORT: String(port),
      BASELINE_MONGODB_URI: env.uri,
      BASELINE_DB: env.db,
      BASELINE_ACCOUNT_ID: env.accountId,
      BASELINE_USER_ID: env.userId,
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
