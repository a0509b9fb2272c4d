import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { PROJECT_ROOT } from '../config/index.ts';
import { takeExitCode, UsageError } from './command.ts';
import { accountsCommands } from './commands/accounts.ts';
import { clientsCommands } from './commands/clients.ts';
import { configsCommands } from './commands/configs.ts';
import { dbCommands } from './commands/db.ts';
import { keysCommands } from './commands/keys.ts';
import { usersCommands } from './commands/users.ts';
import { checkCommandPath, describeFailure, reportFailure } from './failures.ts';

/**
 * The admin CLI (`npx slipway`), assembled from one file per command group (src/cli/commands/). Every
 * command goes through the services the API uses (src/services), so the same rules hold; commander
 * parses the command line and writes the help of every command. stdout carries the result (JSON with
 * --json); errors and progress go to stderr. Exit codes: 0 done, 1 refused or failed, 2 bad usage or
 * configuration.
 */

const VERSION = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export function buildProgram(): Command {
  const program = new Command('slipway')
    .description('The Slipway admin CLI. Configuration comes from config/ and the environment (MONGODB_URI, KEYS_DIR, ...), exactly as for the server.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpCommand(true)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .addHelpText('after', '\nEvery command accepts --json (and --help). `slipway help <command>` shows a command\'s subcommands.');
  usersCommands(program);
  clientsCommands(program);
  keysCommands(program);
  accountsCommands(program);
  dbCommands(program);
  configsCommands(program);
  return program;
}

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  takeExitCode();
  try {
    if (argv.length === 0) throw new UsageError('which command?', program.helpInformation());
    checkCommandPath(program, argv);
    await program.parseAsync(argv, { from: 'user' });
    return takeExitCode();
  } catch (err) {
    // --help and --version end the parse with an "error" whose exit code is 0.
    if (err instanceof CommanderError && err.exitCode === 0) return 0;
    const failure = describeFailure(err, argv.slice(0, 2).filter((a) => !a.startsWith('-')).join(' '));
    reportFailure(failure, argv.includes('--json'));
    return failure.exit;
  }
}
