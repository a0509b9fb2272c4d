import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** The JSON line sdk/testserver/start.ts prints (see sdk/testserver/README.md). */
export interface HarnessInfo {
  base_url: string;
  issuer: string;
  openapi_url: string;
  api_rate_limit_per_hour: number;
  owner: { id: string; email: string; password: string; account_id: string };
  viewer: { id: string; email: string; password: string; account_id: string };
  public_client: { client_id: string; redirect_uri: string; scope: string };
  confidential_client: { client_id: string; client_secret: string; scope: string };
  project: { id: string; name: string };
  api_key: { id: string; key: string; project_id: string; scopes: string[] };
}

export interface Harness {
  info: HarnessInfo;
  stop(): Promise<void>;
}

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..', '..');
const NODE = path.join(REPO_ROOT, 'node_modules', '.bin', 'node');

/** Starts the shared live-server harness (a real Slipway on FerretDB, seeded) and waits for its JSON line. */
export async function startHarness(args: string[] = [], timeoutMs = 120_000): Promise<Harness> {
  const child: ChildProcess = spawn(NODE, [path.join(REPO_ROOT, 'sdk', 'testserver', 'start.ts'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...(process.env.MONGODB_URI ? { MONGODB_URI: process.env.MONGODB_URI } : {}) },
  });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err = (err + chunk).slice(-8000);
    if (process.env.TEST_LOGS) process.stderr.write(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const info = await new Promise<HarnessInfo>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`harness did not start within ${timeoutMs} ms\n${err}`)), timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(JSON.parse(out.slice(0, newline)) as HarnessInfo);
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`harness exited with ${code} before it was ready\n${err}`));
    });
  }).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
  return {
    info,
    async stop() {
      child.stdin!.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
