import { type Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig, type Config } from '../config/index.ts';
import { openContainer, type Container, type ContainerOptions } from '../container.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { IdPrefix } from '../lib/ids.ts';
import { createLogger } from '../logger.ts';

/**
 * What every command file (src/cli/commands/) is made of: the leaf command with --json and paging,
 * the way a result is printed, the runtime a command opens, and the usage error. stdout carries the
 * result (JSON with --json); errors and progress go to stderr.
 */

export class UsageError extends Error {
  readonly help: string | undefined;
  constructor(message: string, help?: string) {
    super(message);
    this.help = help;
  }
}

export interface JsonOption {
  json?: boolean;
}

export interface PageOptions extends JsonOption {
  page: number;
  perPage: number;
}

/** The exit code the last action asked for (0 unless it says otherwise); `run` (src/cli/program.ts) returns it. */
let requestedExitCode = 0;

/** Ends the command with `code` once its result is printed (a partial failure, e.g. `configs reencrypt`). */
export function exitAfterwards(code: number): void {
  requestedExitCode = code;
}

/** The exit code asked for since the last call, and back to 0. */
export function takeExitCode(): number {
  const code = requestedExitCode;
  requestedExitCode = 0;
  return code;
}

/** Zod issues as one line per flag (`  - --email: ...`); `flags` maps input fields to flag names. */
export function flagProblems(input: Record<string, unknown>, issues: readonly { path: readonly PropertyKey[]; message: string }[], flags: Record<string, string> = {}): string {
  return issues
    .map((i) => {
      const field = String(i.path[0] ?? '');
      return `  - --${flags[field] ?? field}: ${input[field] === undefined ? 'required' : i.message}`;
    })
    .join('\n');
}

/** The result: `value` as JSON under --json, otherwise the `human` text. */
export function output(json: boolean | undefined, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}

/** One record: the presented object, as JSON either way. */
export function outputRecord(json: boolean | undefined, presented: unknown): void {
  output(json, presented, JSON.stringify(presented, null, 2));
}

/** A list: `{data, pagination}` as /v1 answers, or one line per item. */
export function outputList<T>(json: boolean | undefined, page: PageRequest, result: PageResult<T>, present: (item: T) => Record<string, unknown>, line: (item: T) => string): void {
  const pagination = { page: page.page, per_page: page.per_page, total: result.total };
  const shown = result.items.length ? result.items.map(line).join('\n') : '(none)';
  const more = result.total > page.page * page.per_page ? `\n… ${result.total} in all: --page ${page.page + 1} for more` : '';
  output(json, { data: result.items.map(present), pagination }, `${shown}${more}`);
}

/** Opens the process's container (configuration from config/ and the environment), runs `fn`, closes it. */
export async function withRuntime<T>(fn: (rt: Container, config: Config) => Promise<T>, options: ContainerOptions = {}): Promise<T> {
  const config = loadConfig();
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', destination: process.stderr });
  const rt = await openContainer(config, logger, options);
  try {
    return await fn(rt, config);
  } finally {
    await rt.close();
  }
}

const positiveInt = (max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`must be an integer from 1 to ${max}`);
  return n;
};

/** For an option that may be repeated (`--grant a --grant b`). */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A command that does the work: --json, and paging (--page, --per-page) for lists. */
export function leaf(parent: Command, name: string, description: string, options: { list?: boolean } = {}): Command {
  const command = parent.command(name).description(description).option('--json', 'machine-readable output; errors as JSON on stderr');
  if (options.list) command.option('--page <n>', 'page number', positiveInt(1_000_000), 1).option('--per-page <n>', 'items per page (1-100)', positiveInt(100), 20);
  return command;
}

/** An id as the help shows it (`proj_…`): typed by the prefixes ids are minted with (src/lib/ids.ts). */
export const idExample = (prefix: IdPrefix): string => `${prefix}_…`;

/** `--account`, for the commands that act in an account (see `withAccount` in src/cli/operator.ts). */
export const ACCOUNT_OPTION = ['--account <id>', `the account (${idExample('acct')}; default: the only one)`] as const;

export const pageOf = (o: PageOptions): PageRequest => ({ page: o.page, per_page: o.perPage });

/** `--password`, hidden from the help and refused (see `refusePasswordFlag`). */
export function hiddenPasswordFlag(): Option {
  return new Option('--password <password>', 'not accepted (see the help)').hideHelp();
}

/** A secret refused on the command line, with the way to pass it instead. */
export function refusePasswordFlag(value: unknown): void {
  if (value !== undefined)
    throw new UsageError('--password is not accepted: a password on the command line ends up in shell history and the process list. Type it at the prompt, or pipe it on stdin.');
}
