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
  /** Sends a harness command (`database stop`, `database start`) and resolves with its JSON answer. */
  command(line: string): Promise<Record<string, string>>;
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
  // Every stdout line is one JSON value: the info line first, then one answer per command.
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (let newline = out.indexOf('\n'); newline >= 0; newline = out.indexOf('\n')) {
      const line = out.slice(0, newline);
      out = out.slice(newline + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const nextLine = (what: string, ms: number) =>
    new Promise<string>((resolve, reject) => {
      const queued = lines.shift();
      if (queued !== undefined) return resolve(queued);
      const timer = setTimeout(() => reject(new Error(`no ${what} from the harness within ${ms} ms\n${err}`)), ms);
      const onClose = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`harness exited with ${code} before ${what}\n${err}`));
      };
      child.once('close', onClose);
      waiters.push((line) => {
        clearTimeout(timer);
        child.off('close', onClose);
        resolve(line);
      });
    });
  const info = await nextLine('info line', timeoutMs)
    .then((line) => JSON.parse(line) as HarnessInfo)
    .catch((e: unknown) => {
      child.kill('SIGKILL');
      throw e;
    });
  return {
    info,
    async command(line: string) {
      child.stdin!.write(`${line}\n`);
      return JSON.parse(await nextLine(`an answer to "${line}"`, 60_000)) as Record<string, string>;
    },
    async stop() {
      child.stdin!.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
