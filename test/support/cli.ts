import { inject } from 'vitest';
import { runNode, type Exit } from './processes.ts';

/** Where the CLI works: a database (on the run's server unless `mongodbUri` says otherwise) and a keys directory. A TestServer's `config` is one. */
export interface CliTarget {
  mongodbUri?: string | undefined;
  mongodbDb: string;
  keysDir: string;
}

export interface CliOptions {
  /** Written to its stdin, which is then closed (a password, as a script passes it). */
  input?: string;
  /** More environment (it gets nothing else of the test's). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * The admin CLI exactly as an operator runs it: `bin/slipway.js ARGS` in a process of its own,
 * configured by the environment alone (MONGODB_URI, MONGODB_DB, KEYS_DIR, LOG_LEVEL=warn).
 */
export async function runCli(on: CliTarget, args: string[], options: CliOptions = {}): Promise<Exit & { stdout: string; stderr: string }> {
  const env = { MONGODB_URI: on.mongodbUri ?? inject('mongodbUri'), MONGODB_DB: on.mongodbDb, KEYS_DIR: on.keysDir, LOG_LEVEL: 'warn', ...options.env };
  return await runNode(['bin/slipway.js', ...args], env, options.timeoutMs ?? 30_000, options.input);
}
