import { type Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config/index.ts';
import { DocumentdbUnavailable } from '../db/documentdb.ts';
import { EmbeddedDatabaseUnavailable } from '../db/embeddedFerretdb.ts';
import { AppError } from '../errors.ts';
import { debugRequested, describeStartupFailure, EXIT } from '../startupFailure.ts';
import { UsageError } from './command.ts';
import { InputError } from './io.ts';

/** A failure as the CLI reports it: the JSON error's code and message, the exit code, the text for people. */
export interface Failure {
  code: string;
  message: string;
  details?: unknown;
  exit: number;
  human: string;
}

/** `projects explode` → "unknown command: projects explode" with the help of the nearest command. */
export function checkCommandPath(program: Command, argv: string[]): void {
  const [group, action] = argv;
  if (!group || group.startsWith('-') || group === 'help') return;
  const found = program.commands.find((c) => c.name() === group);
  if (!found) throw new UsageError(`unknown command: ${[group, action].filter(Boolean).join(' ')}`, program.helpInformation());
  if (found.commands.length && action && !action.startsWith('-') && action !== 'help' && !found.commands.some((c) => c.name() === action))
    throw new UsageError(`unknown command: ${group} ${action}`, found.helpInformation());
  if (found.commands.length && !action) throw new UsageError(`${group}: which one?`, found.helpInformation());
}

/**
 * Exit codes: 1 refused or failed, 2 bad usage or configuration; no embedded database 3, a database
 * that cannot be reached 4, unusable key material 6 (the classes of src/startupFailure.ts).
 */
export function describeFailure(err: unknown, commandPath: string): Failure {
  if (err instanceof UsageError) return { code: 'usage', message: err.message, exit: 2, human: `slipway: ${err.message}${err.help ? `\n\n${err.help}` : ''}` };
  if (err instanceof CommanderError) {
    const message = err.message.replace(/^error: /, '');
    return { code: 'usage', message, exit: 2, human: `slipway: ${message}\n(see \`slipway ${commandPath ? `${commandPath} ` : ''}--help\`)` };
  }
  if (err instanceof ConfigError) return { code: 'invalid_configuration', message: err.message, details: err.problems, exit: 2, human: err.message };
  if (err instanceof EmbeddedDatabaseUnavailable) return { code: 'embedded_database_unavailable', message: err.message, exit: EXIT.embeddedDatabase, human: err.message };
  if (err instanceof DocumentdbUnavailable) return { code: 'documentdb_unavailable', message: err.message, exit: EXIT.embeddedDatabase, human: `slipway: ${err.message}` };
  if (err instanceof InputError) return { code: 'invalid_input', message: err.message, exit: 2, human: `slipway: ${err.message}` };
  if (err instanceof AppError) {
    const details = err.details?.map((d) => `  - ${d.field}: ${d.message}`).join('\n');
    return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}), exit: 1, human: `slipway: ${err.message}${details ? `\n${details}` : ''}` };
  }
  // The database, the key material, or something unforeseen: the same classes and exit codes as `npm
  // start` (src/startupFailure.ts), each with its own code; the stack only with SLIPWAY_DEBUG=1.
  let databaseUri: string | undefined;
  try {
    databaseUri = loadConfig().mongodbUri;
  } catch {
    databaseUri = process.env.MONGODB_URI;
  }
  const startup = describeStartupFailure(err, databaseUri);
  if (debugRequested()) console.error(err);
  return { code: startup.code, message: startup.message, exit: startup.exit, human: `slipway: ${startup.message}` };
}

/** The failure on stderr: `{"error": {...}}` under --json, the human text otherwise. */
export function reportFailure(failure: Failure, json: boolean): void {
  if (json) console.error(JSON.stringify({ error: { code: failure.code, message: failure.message, ...(failure.details ? { details: failure.details } : {}) } }, null, 2));
  else console.error(failure.human);
}
