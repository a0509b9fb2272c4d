import { ConfigError } from './config/index.ts';
import { EmbeddedDatabaseUnavailable } from './db/embeddedFerretdb.ts';
import { EmbeddedDatabaseFailed } from './db/runtime.ts';
import { KeyMaterialError } from './keys/keystore.ts';
import { MissingDataKeysError } from './services/dataKeyCheck.ts';

/**
 * Why the server (or an admin CLI command) could not start, as one line a person can act on: what went
 * wrong, the setting it comes from, and what to do. Each class has its own exit code and a stable `code`
 * (the CLI's `--json` error code); the list is in docs/OPERATIONS.md ("Exit codes").
 */
export interface StartupFailure {
  code: string;
  /** The one line (no stack: that is shown only with SLIPWAY_DEBUG=1 or LOG_LEVEL=debug). */
  message: string;
  /** The setting to look at, when there is one. */
  setting?: string;
  exit: number;
}

/** Exit codes of `npm start` (src/main.ts) and of the admin CLI for the same failures. */
export const EXIT = {
  /** Anything unforeseen: a bug; the message says how to see the stack. */
  failed: 1,
  /** Invalid configuration (every problem is listed), or bad usage of the CLI. */
  configuration: 2,
  /** No MONGODB_URI, and the embedded database cannot be built (no Go) or started (DATA_DIR, TOOLS_DIR). */
  embeddedDatabase: 3,
  /** MONGODB_URI names a server that cannot be reached, or refuses the credentials. */
  database: 4,
  /** The address to listen on (PORT, HOST, METRICS_LISTEN) is taken or not allowed. */
  listen: 5,
  /** KEYS_DIR cannot be read or written, or holds invalid key material. */
  keys: 6,
  /** Node.js older than 24 (bin/slipway.js says so before loading anything). */
  node: 7,
} as const;

/** The listener could not be opened: thrown by startServer with the setting that chose its address. */
export class ListenError extends Error {
  readonly setting: string;
  readonly address: string;
  constructor(setting: string, address: string, cause: unknown) {
    super(`cannot listen on ${address}: ${(cause as Error).message}`, { cause });
    this.name = 'ListenError';
    this.setting = setting;
    this.address = address;
  }
}

/** `mongodb://user:secret@host:27017/db?x=y` → `host:27017`: where it tried, never a password. */
export function databaseHosts(uri: string | undefined): string {
  if (!uri) return 'the embedded database';
  const afterScheme = uri.replace(/^mongodb(\+srv)?:\/\//, '');
  const hosts = afterScheme.split('/')[0]!.split('@').pop()!;
  return hosts || uri.split(':')[0]!;
}

function errorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth += 1)
    if (typeof e.code === 'string') return e.code;
  return undefined;
}

const MONGO_ERRORS = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoTopologyClosedError']);

/**
 * Classifies what ended the start. `databaseUri` is MONGODB_URI (undefined for the embedded database).
 * Returns the unforeseen class (exit 1) for anything it does not recognize.
 */
export function describeStartupFailure(err: unknown, databaseUri: string | undefined): StartupFailure {
  const message = (err as Error)?.message ?? String(err);
  const name = (err as Error)?.name ?? '';
  if (err instanceof ConfigError) return { code: 'invalid_configuration', message: err.message, exit: EXIT.configuration };
  if (err instanceof EmbeddedDatabaseUnavailable) return { code: 'embedded_database_unavailable', message: err.message, setting: 'MONGODB_URI', exit: EXIT.embeddedDatabase };
  if (err instanceof EmbeddedDatabaseFailed)
    return {
      code: 'embedded_database_unavailable',
      message: `${message.split('\n')[0]} (DATA_DIR=${err.dataDir}): check that DATA_DIR is writable and TOOLS_DIR holds the build (SLIPWAY_DEBUG=1 shows the details), or set MONGODB_URI to a MongoDB server.`,
      setting: 'DATA_DIR',
      exit: EXIT.embeddedDatabase,
    };
  if (err instanceof ListenError) {
    const code = errorCode(err.cause);
    const why =
      code === 'EADDRINUSE'
        ? 'another process is using that port'
        : code === 'EACCES'
          ? 'this user may not listen on that port'
          : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
            ? 'no interface of this machine has that address'
            : (err.cause as Error).message;
    const fix = err.setting === 'METRICS_LISTEN' ? 'set METRICS_LISTEN to a free host:port' : `set ${err.setting} to a free one (e.g. PORT=3001 npm start), or stop the other process`;
    return { code: 'address_unavailable', message: `cannot listen on ${err.address} (${err.setting}): ${why}; ${fix}.`, setting: err.setting, exit: EXIT.listen };
  }
  if (err instanceof MissingDataKeysError) return { code: 'data_keys_missing', message, setting: 'KEYS_DIR', exit: EXIT.keys };
  if (err instanceof KeyMaterialError)
    return { code: 'key_material_invalid', message: `${message} (KEYS_DIR): fix or restore those files, or point KEYS_DIR at the right directory.`, setting: 'KEYS_DIR', exit: EXIT.keys };
  if (name === 'MongoParseError' || name === 'MongoAPIError' || name === 'MongoInvalidArgumentError')
    return { code: 'invalid_configuration', message: `MONGODB_URI is not a valid connection string: ${message}`, setting: 'MONGODB_URI', exit: EXIT.configuration };
  if (name === 'MongoServerError' && [18, 13].includes(Number((err as { code?: unknown }).code)))
    return {
      code: 'database_unreachable',
      message: `the database at ${databaseHosts(databaseUri)} refused the credentials in MONGODB_URI (${message}): check the user and password in MONGODB_URI.`,
      setting: 'MONGODB_URI',
      exit: EXIT.database,
    };
  if (MONGO_ERRORS.has(name)) {
    const reason = message.split(': ')[0] === message ? message : message.split(': ').slice(0, 1).join(': ');
    const fix = databaseUri
      ? 'check MONGODB_URI and that the server runs (or unset MONGODB_URI to use the embedded database).'
      : 'the embedded database did not answer; look at DATA_DIR, or set MONGODB_URI to a MongoDB server.';
    return { code: 'database_unreachable', message: `cannot reach the database at ${databaseHosts(databaseUri)} (${reason}): ${fix}`, setting: 'MONGODB_URI', exit: EXIT.database };
  }
  return { code: 'internal_error', message: `${message} (SLIPWAY_DEBUG=1 shows the stack)`, exit: EXIT.failed };
}

/** The stack and causes are for whoever asks: SLIPWAY_DEBUG=1, or LOG_LEVEL debug or trace. */
export function debugRequested(env: NodeJS.ProcessEnv = process.env, logLevel = env.LOG_LEVEL): boolean {
  return /^(1|true|yes)$/i.test(env.SLIPWAY_DEBUG ?? '') || logLevel === 'debug' || logLevel === 'trace';
}
