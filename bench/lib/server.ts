import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { procStatusBytes } from './memory.ts';
import type { ServerUnderTest } from './types.ts';

export interface ServerProcess extends ServerUnderTest {
  logFile: string;
  /** Peak resident set size over the process's life (VmHWM), in bytes. */
  peakRss(): number | undefined;
  /** The last lines of the server's log, for error messages. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/**
 * Starts the real server the way `npm start` does (`node src/main.ts`, configured by the environment
 * only) as a child process, so what is measured is the production code path and its memory is its own.
 * Its log goes to a file: logging stays on, as in production, but costs the benchmark nothing to read.
 */
/**
 * The Node flags the server runs with: those of `npm start` (package.json `scripts.start`, `node <flags>
 * src/main.ts`; the Dockerfile's CMD has the same), so that the benchmark measures what is shipped; or
 * BENCH_SERVER_FLAGS when set (e.g. `--max-semi-space-size=2`, or empty for none), to measure others.
 */
export function serverNodeFlags(): string[] {
  const override = process.env.BENCH_SERVER_FLAGS;
  if (override !== undefined) return override.split(/\s+/).filter(Boolean);
  const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const match = /^node((?:\s+--[\w-]+(?:=\S+)?)*)\s+src\/main\.ts$/.exec(pkg.scripts?.start ?? '');
  if (!match) throw new Error('package.json scripts.start must read `node [--flag …] src/main.ts`');
  return match[1]!.split(/\s+/).filter(Boolean);
}

export async function startServerProcess(options: { env: Record<string, string>; workDir: string; readyTimeoutMs?: number }): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = path.join(options.workDir, 'server.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...serverNodeFlags(), 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? options.workDir,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      // e.g. BENCH_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/slipway-prof" to profile the server.
      ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
      ...options.env,
    },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logTail = (lines = 20) => {
    try {
      return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode} while starting:\n${logTail()}`);
    const ready = await fetch(`${url}/readyz`).then(
      async (r) => {
        await r.body?.cancel();
        return r.status === 200;
      },
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not become ready within ${options.readyTimeoutMs ?? 60_000} ms:\n${logTail()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    issuer: `${url}/oauth`,
    pid: child.pid!,
    logFile,
    logTail,
    peakRss: () => procStatusBytes(child.pid!, 'VmHWM'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
