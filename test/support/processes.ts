import { afterEach } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/index.ts';

/** Node 24 from node_modules (the system node is too old for type stripping). */
export const NODE = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'node');

/**
 * A clean environment for a child: nothing of the caller's Slipway configuration leaks in (a stray
 * MONGODB_URI would silently change what a test exercises), only what the test passes.
 */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...extra };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface NodeProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** stdout parsed as JSON lines (pino's output); other lines are skipped. */
  logLines(): Record<string, unknown>[];
  /** Resolves with the exit status, or rejects after `timeoutMs` (the process is left running). */
  exited(timeoutMs: number): Promise<Exit>;
  /** SIGKILL if still running; for cleanup after a failed test. */
  kill(): void;
}

/** `input`: written to the child's stdin, which is then closed (default: no stdin at all). */
export function spawnNode(args: string[], env: Record<string, string>, input?: string): NodeProcess {
  const child = spawn(NODE, args, { cwd: PROJECT_ROOT, env: childEnv(env), stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin!.end(input);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exit = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return {
    child,
    pid: child.pid!,
    stdout: () => out,
    stderr: () => err,
    logLines: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    exited: (timeoutMs) =>
      Promise.race([
        exit,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`pid ${child.pid} still running after ${timeoutMs} ms\nstdout: ${out.slice(-2000)}\nstderr: ${err.slice(-2000)}`)), timeoutMs).unref(),
        ),
      ]),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Runs a Node script to completion (bounded) and returns its exit code and output. */
export async function runNode(args: string[], env: Record<string, string>, timeoutMs = 30_000, input?: string): Promise<Exit & { stdout: string; stderr: string }> {
  const proc = spawnNode(args, env, input);
  try {
    const exit = await proc.exited(timeoutMs);
    return { ...exit, stdout: proc.stdout(), stderr: proc.stderr() };
  } finally {
    proc.kill();
  }
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
}

/** The processes a test file starts (push them here): each still running is stopped after every test, SIGTERM then SIGKILL after 10 s. */
export function stoppedAfterEach(): NodeProcess[] {
  const started: NodeProcess[] = [];
  afterEach(async () => {
    for (const proc of started.splice(0)) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) continue;
      proc.child.kill('SIGTERM');
      await proc.exited(10_000).catch(() => proc.kill());
    }
  });
  return started;
}
