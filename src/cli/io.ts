import readline from 'node:readline';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../logger.ts';

/** Longest secret accepted on stdin; anything longer is refused rather than read without end. */
const MAX_STDIN_BYTES = 4096;

export class InputError extends Error {}

/** Reads a whole (small) stdin; the secret is its first line. */
async function readStdinLine(stdin: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_STDIN_BYTES) throw new InputError(`stdin is longer than ${MAX_STDIN_BYTES} bytes: pipe only the password`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

/** One line typed at the terminal without echo (the prompt itself goes to stderr). */
async function promptHidden(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  try {
    const answer = new Promise<string>((resolve, reject) => {
      rl.question(question, resolve);
      rl.once('close', () => reject(new InputError('no password entered')));
      rl.once('SIGINT', () => reject(new InputError('cancelled')));
    });
    muted = true;
    return await answer;
  } finally {
    muted = false;
    process.stderr.write('\n');
    rl.close();
  }
}

/**
 * A password, never from the command line (shell history, `ps`): typed at a prompt without echo and
 * confirmed when stdin is a terminal, otherwise the first line of stdin
 * (`printf '%s\n' "$PASSWORD" | slipway users set-password usr_…`).
 */
export async function readPassword(what = 'Password'): Promise<string> {
  if (!process.stdin.isTTY) return await readStdinLine(process.stdin);
  const first = await promptHidden(`${what}: `);
  const again = await promptHidden(`${what} (again): `);
  if (first !== again) throw new InputError('the two passwords differ');
  return first;
}

/** A one-line notice on stderr (`slipway: …`: progress, a deprecated form), never mixed into the result. */
export function notice(line: string): void {
  process.stderr.write(`slipway: ${line}\n`);
}

/**
 * Progress of long work as plain lines on stderr (`slipway: building …`), so stdout stays the result
 * (JSON under --json). Log records of the services underneath are shown the same way.
 */
export function progressLogger(level = process.env.LOG_LEVEL ?? 'info'): { logger: Logger; progress: (line: string) => void } {
  const progress = notice;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) {
        try {
          const { msg, level: _level, time: _time, service: _service, pid: _pid, hostname: _hostname, ...fields } = JSON.parse(text) as Record<string, unknown>;
          const extra = Object.entries(fields)
            .filter(([, v]) => typeof v !== 'object')
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(' ');
          progress(`${String(msg)}${extra ? ` (${extra})` : ''}`);
        } catch {
          progress(text);
        }
      }
      callback();
    },
  });
  return { logger: createLogger({ level, destination: sink }), progress };
}

/** Calls `tick(seconds)` every `everyMs` while `work` runs: a sign of life during a long, silent step. */
export async function withHeartbeat<T>(work: Promise<T>, tick: (seconds: number) => void, everyMs = 15_000): Promise<T> {
  const started = Date.now();
  const timer = setInterval(() => tick(Math.round((Date.now() - started) / 1000)), everyMs);
  timer.unref();
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
