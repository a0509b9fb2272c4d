import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, PROJECT_ROOT, loadConfig, type Config } from '../config/index.ts';
import { EmbeddedDatabaseUnavailable, FERRETDB_VERSION, ensureFerretdbBinary, ferretdbPatchSet, ferretdbSourceDir } from '../db/embeddedFerretdb.ts';
import { AppError, notFound } from '../errors.ts';
import { retireSigningKey, rotateCookieKeys, rotateDataKey, rotateSigningKey, loadOrCreateKeys } from '../keys/keystore.ts';
import { createLogger } from '../logger.ts';
import { migrate } from '../repositories/index.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { presentApiKey, presentIssuedApiKey } from '../presenters/apiKeys.ts';
import { CreateApiKeyBody } from '../schemas/apiKeys.ts';
import { systemPrincipal } from '../domain/principal.ts';
import { presentClient } from '../presenters/oauthClients.ts';
import { OperatorClientInput } from '../schemas/oauthClients.ts';
import { parseInput } from '../schemas/parse.ts';
import { openContainer, type Container } from '../container.ts';
import { presentAccount } from '../presenters/accounts.ts';
import { presentUser } from '../presenters/users.ts';
import { OperatorCreateUserInput, SetPasswordInput } from '../schemas/users.ts';
import { InputError, progressLogger, readPassword, withHeartbeat } from './io.ts';

/**
 * The admin CLI (`npx slipway`). Every command goes through the services the API uses (src/services),
 * so the same rules hold; commander parses the command line and writes the help of every command.
 * stdout carries the result (JSON with --json); errors and progress go to stderr. Exit codes: 0 done,
 * 1 refused or failed, 2 bad usage or configuration.
 */

const VERSION = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

class UsageError extends Error {
  readonly help: string | undefined;
  constructor(message: string, help?: string) {
    super(message);
    this.help = help;
  }
}

/** The exit code an action asks for (the default is 0). */
let exitCode = 0;

interface JsonOption {
  json?: boolean;
}

/** Zod issues as one line per flag (`  - --email: ...`); `flags` maps input fields to flag names. */
function flagProblems(input: Record<string, unknown>, issues: readonly { path: readonly PropertyKey[]; message: string }[], flags: Record<string, string> = {}): string {
  return issues
    .map((i) => {
      const field = String(i.path[0] ?? '');
      return `  - --${flags[field] ?? field}: ${input[field] === undefined ? 'required' : i.message}`;
    })
    .join('\n');
}

function output(json: boolean | undefined, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}

/** A list: `{data, pagination}` as /v1 answers, or one line per item. */
function outputList<T>(json: boolean | undefined, page: PageRequest, result: PageResult<T>, present: (item: T) => Record<string, unknown>, line: (item: T) => string): void {
  const pagination = { page: page.page, per_page: page.per_page, total: result.total };
  const shown = result.items.length ? result.items.map(line).join('\n') : '(none)';
  const more = result.total > page.page * page.per_page ? `\n… ${result.total} in all: --page ${page.page + 1} for more` : '';
  output(json, { data: result.items.map(present), pagination }, `${shown}${more}`);
}

async function withRuntime<T>(fn: (rt: Container, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', destination: process.stderr });
  const rt = await openContainer(config, logger);
  try {
    return await fn(rt, config);
  } finally {
    await rt.close();
  }
}

/** --account, or the only account there is. */
async function accountOf(rt: Container, account: string | undefined): Promise<string> {
  if (account) return account;
  const { items, total } = await rt.repos.accounts.page({ page: 1, per_page: 1 });
  if (total === 1) return items[0]!._id;
  throw new UsageError(total ? 'several accounts exist: pass --account ACCT (see `slipway accounts list`)' : 'no account exists yet: create a user first');
}

const positiveInt = (max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new InvalidArgumentError(`must be an integer from 1 to ${max}`);
  return n;
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A command that does the work: --json, and paging for lists. */
function leaf(parent: Command, name: string, description: string, options: { list?: boolean } = {}): Command {
  const command = parent.command(name).description(description).option('--json', 'machine-readable output; errors as JSON on stderr');
  if (options.list) command.option('--page <n>', 'page number', positiveInt(1_000_000), 1).option('--per-page <n>', 'items per page (1-100)', positiveInt(100), 20);
  return command;
}

const pageOf = (o: { page: number; perPage: number }): PageRequest => ({ page: o.page, per_page: o.perPage });

/** A secret refused on the command line, with the way to pass it instead. */
function refusePasswordFlag(value: unknown): void {
  if (value !== undefined)
    throw new UsageError('--password is not accepted: a password on the command line ends up in shell history and the process list. Type it at the prompt, or pipe it on stdin.');
}

function usersCommands(program: Command): void {
  const users = program.command('users').description('users of an account: create, list, show, delete, set a password');

  leaf(users, 'create', 'create a user (and a new account unless --account); the password is read from a prompt or stdin')
    .option('--email <email>', 'email address (the login)')
    .option('--name <name>', 'display name')
    .option('--role <role>', 'viewer, developer, admin or owner')
    .option('--account <id>', 'an existing account (default: a new one)')
    .addOption(hiddenPasswordFlag())
    .addHelpText('after', `\nExample:\n  printf '%s\\n' "$PASSWORD" | slipway users create --email you@example.com --name You --role owner`)
    .action(async (o: JsonOption & { email?: string; name?: string; role?: string; account?: string; password?: string }) => {
      refusePasswordFlag(o.password);
      const password = await readPassword();
      const input = { email: o.email as string, password, name: o.name as string, role: o.role as 'owner', ...(o.account ? { account_id: o.account } : {}) };
      // Every problem at once (missing flags included), before touching the database.
      const checked = OperatorCreateUserInput.safeParse(input);
      if (!checked.success) throw new UsageError(`invalid arguments:\n${flagProblems(input, checked.error.issues, { account_id: 'account', password: 'password (stdin)' })}`);
      const user = await withRuntime((rt) => rt.services.users.createByOperator(checked.data));
      output(o.json, presentUser(user), `created user ${user._id} (${user.email}, ${user.role}) in account ${user.account_id}`);
    });

  leaf(users, 'list', 'list the users of an account', { list: true })
    .option('--account <id>', 'the account (default: the only one)')
    .action(async (o: JsonOption & { account?: string; page: number; perPage: number }) => {
      const page = pageOf(o);
      const result = await withRuntime(async (rt) => rt.services.users.list(systemPrincipal(await accountOf(rt, o.account)), page));
      outputList(o.json, page, result, presentUser, (u) => `${u._id}  ${u.email}  ${u.role}  ${u.name}`);
    });

  leaf(users, 'get', 'show one user')
    .argument('<id>', 'user id (usr_…)')
    .action(async (id: string, o: JsonOption) => {
      const user = await withRuntime(async (rt) => {
        const found = await rt.repos.users.findById(id);
        if (!found) throw notFound('No such user.');
        return await rt.services.users.get(systemPrincipal(found.account_id), id);
      });
      output(o.json, presentUser(user), JSON.stringify(presentUser(user), null, 2));
    });

  leaf(users, 'delete', 'delete a user and end everything that lets them act (grants, sessions); never the last owner')
    .argument('<id>', 'user id (usr_…)')
    .action(async (id: string, o: JsonOption) => {
      const result = await withRuntime(async (rt) => {
        const found = await rt.repos.users.findById(id);
        if (!found) throw notFound('No such user.');
        return await rt.services.users.delete(systemPrincipal(found.account_id), id);
      });
      output(o.json, { deleted: presentUser(result.user), revoked_grants: result.revokedGrants }, `deleted user ${result.user._id} (${result.user.email}); ${result.revokedGrants} grant(s) revoked`);
    });

  leaf(users, 'set-password', "set a user's password (read from a prompt or stdin, never from the command line); ends their sessions and their apps' tokens")
    .argument('<id>', 'user id (usr_…)')
    .addOption(hiddenPasswordFlag())
    .addHelpText('after', `\nExample (a locked-out owner):\n  slipway users list --account acct_…\n  slipway users set-password usr_…          # prompts twice, without echo\n  printf '%s\\n' "$PASSWORD" | slipway users set-password usr_…`)
    .action(async (id: string, o: JsonOption & { password?: string }) => {
      refusePasswordFlag(o.password);
      const input = parseInput(SetPasswordInput, { password: await readPassword('New password') });
      const user = await withRuntime(async (rt) => {
        const found = await rt.repos.users.findById(id);
        if (!found) throw notFound('No such user.');
        return await rt.services.users.setPassword(systemPrincipal(found.account_id), id, input);
      });
      output(o.json, presentUser(user), `password set for ${user._id} (${user.email}); their sessions have ended`);
    });
}

function hiddenPasswordFlag() {
  return new Option('--password <password>', 'not accepted (see the help)').hideHelp();
}

function clientsCommands(program: Command): void {
  const clients = program.command('clients').description('OAuth clients: create, list, show, delete, rotate a secret');

  leaf(clients, 'create', 'register an OAuth client; a confidential client gets a secret, printed once')
    .option('--name <name>', 'client name shown on the consent page')
    .option('--redirect-uri <uri>', 'a redirect URI (repeat for several)', collect)
    .option('--public', 'a public client (no secret; browser and native apps): the default')
    .option('--confidential', 'a confidential client (client_secret_basic)')
    .option('--first-party', 'skip the consent page')
    .option('--require-dpop', 'token requests must carry a DPoP proof (dpop_bound_access_tokens)')
    .option('--require-par', 'authorization requests must be pushed first (require_pushed_authorization_requests)')
    .option('--grant <type>', 'authorization_code, refresh_token or client_credentials (repeat for several)', collect)
    .option('--scope <scopes>', 'scopes it may request, e.g. "read write"')
    .option('--account <id>', 'the account (default: the only one)')
    .action(async (o: JsonOption & { name?: string; redirectUri?: string[]; public?: boolean; confidential?: boolean; firstParty?: boolean; requireDpop?: boolean; requirePar?: boolean; grant?: string[]; scope?: string; account?: string }) => {
      if (!o.name) throw new UsageError('missing --name');
      if (o.public && o.confidential) throw new UsageError('--public and --confidential exclude each other');
      const input = parseInput(OperatorClientInput, {
        client_name: o.name,
        redirect_uris: o.redirectUri ?? [],
        token_endpoint_auth_method: o.confidential ? 'client_secret_basic' : 'none',
        ...(o.grant ? { grant_types: o.grant } : {}),
        ...(o.scope ? { scope: o.scope } : {}),
        first_party: !!o.firstParty,
        dpop_bound_access_tokens: !!o.requireDpop,
        require_pushed_authorization_requests: !!o.requirePar,
      });
      const result = await withRuntime(async (rt) => rt.services.oauthClients.registerAsOperator(systemPrincipal(await accountOf(rt, o.account)), input));
      const presented = { ...presentClient(result.client), ...(result.clientSecret ? { client_secret: result.clientSecret } : {}) };
      output(
        o.json,
        presented,
        `created client ${result.client._id} (${result.client.client_name})` +
          (result.clientSecret ? `\nclient_secret: ${result.clientSecret}\nStore it now: it is not shown again.` : ''),
      );
    });

  leaf(clients, 'list', 'list the OAuth clients of an account', { list: true })
    .option('--account <id>', 'the account (default: the only one)')
    .action(async (o: JsonOption & { account?: string; page: number; perPage: number }) => {
      const page = pageOf(o);
      const result = await withRuntime(async (rt) => rt.services.oauthClients.list(systemPrincipal(await accountOf(rt, o.account)), page));
      outputList(o.json, page, result, presentClient, (c) => `${c._id}  ${c.client_name}  ${c.token_endpoint_auth_method === 'none' ? 'public' : 'confidential'}  ${c.grant_types.join(',')}`);
    });

  /** The operator in the account of the client (the CLI knows only its id). */
  const operatorOf = async (rt: Container, id: string) => {
    const found = await rt.repos.oauthClients.findById(id);
    if (!found) throw notFound('No such OAuth client.');
    return systemPrincipal(found.account_id);
  };

  leaf(clients, 'get', 'show one OAuth client')
    .argument('<client_id>', 'client id (cli_…)')
    .action(async (id: string, o: JsonOption) => {
      const client = await withRuntime(async (rt) => rt.services.oauthClients.get(await operatorOf(rt, id), id));
      output(o.json, presentClient(client), JSON.stringify(presentClient(client), null, 2));
    });

  leaf(clients, 'delete', 'delete an OAuth client and revoke every grant made to it')
    .argument('<client_id>', 'client id (cli_…)')
    .action(async (id: string, o: JsonOption) => {
      const result = await withRuntime(async (rt) => rt.services.oauthClients.delete(await operatorOf(rt, id), id));
      output(o.json, { deleted: presentClient(result.client), revoked_grants: result.revokedGrants }, `deleted client ${result.client._id} (${result.client.client_name}); ${result.revokedGrants} grant(s) revoked`);
    });

  leaf(clients, 'rotate-secret', "replace a confidential client's secret (printed once); the old one stops working at once")
    .argument('<client_id>', 'client id (cli_…)')
    .action(async (id: string, o: JsonOption) => {
      const result = await withRuntime(async (rt) => rt.services.oauthClients.rotateSecret(await operatorOf(rt, id), id));
      output(
        o.json,
        { ...presentClient(result.client), client_secret: result.clientSecret },
        `new secret for ${result.client._id} (${result.client.client_name})\nclient_secret: ${result.clientSecret}\nStore it now: it is not shown again.`,
      );
    });
}

function keysCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description("project API keys (create, list --project, get, revoke, delete) and the server's own key material in keys/ (list, rotate, retire, rotate-cookies, rotate-data)");

  leaf(keys, 'create', 'create a project API key; the key is printed once and never again')
    .option('--project <id>', 'the project (prj_…)')
    .option('--name <name>', 'what the key is for')
    .option('--scopes <scopes>', 'read, write and/or admin, comma-separated')
    .option('--expires-at <iso>', 'expiry (ISO 8601); default never')
    .action(async (o: JsonOption & { project?: string; name?: string; scopes?: string; expiresAt?: string }) => {
      const input: Record<string, unknown> = {
        name: o.name,
        scopes: typeof o.scopes === 'string' ? o.scopes.split(/[\s,]+/).filter(Boolean) : undefined,
        ...(o.expiresAt ? { expires_at: o.expiresAt } : {}),
      };
      // Every problem at once (missing flags included), before touching the database.
      const checked = CreateApiKeyBody.safeParse(input);
      const problems = [o.project ? '' : '  - --project: required', checked.success ? '' : flagProblems(input, checked.error.issues, { expires_at: 'expires-at' })];
      if (!checked.success || !o.project) throw new UsageError(`invalid arguments:\n${problems.filter(Boolean).join('\n')}`);
      const issued = await withRuntime(async (rt) => {
        const project = await rt.repos.projects.findById(o.project!);
        if (!project) throw notFound(`No such project: ${o.project!}.`);
        return await rt.services.apiKeys.create(systemPrincipal(project.account_id), project._id, checked.data);
      });
      output(
        o.json,
        presentIssuedApiKey(issued),
        `created API key ${issued.apiKey._id} (${issued.apiKey.name}) for project ${issued.apiKey.project_id}, scopes: ${issued.apiKey.scopes.join(' ')}` +
          `\nkey: ${issued.key}\nStore it now: it is not shown again.`,
      );
    });

  leaf(keys, 'list', "with --project: the project's API keys; without: the signing, cookie and data keys in keys/", { list: true })
    .option('--project <id>', 'list the API keys of this project (prj_…)')
    .action(async (o: JsonOption & { project?: string; page: number; perPage: number }) => {
      if (o.project) {
        const page = pageOf(o);
        const result = await withRuntime(async (rt) => {
          const project = await rt.repos.projects.findById(o.project!);
          if (!project) throw notFound(`No such project: ${o.project!}.`);
          return await rt.services.apiKeys.list(systemPrincipal(project.account_id), project._id, {}, page);
        });
        outputList(o.json, page, result, (k) => presentApiKey(k), (k) => {
          const shown = presentApiKey(k);
          return `${shown.id}  ${shown.name}  ${shown.prefix}…${shown.last_four}  ${shown.scopes.join(',')}  ${shown.status}`;
        });
        return;
      }
      const material = await loadOrCreateKeys(loadConfig().keysDir);
      const value = {
        signing: material.signing.keys.map((k, i) => ({ kid: k.kid, alg: k.alg, current: i === 0 })),
        cookies: material.cookies.length,
        data: { current: material.data.current, ids: Object.keys(material.data.keys) },
      };
      output(o.json, value, JSON.stringify(value, null, 2));
    });

  const findKey = async (rt: Container, id: string) => {
    const found = await rt.repos.apiKeys.findById(id);
    if (!found) throw notFound('No such API key.');
    return found;
  };

  leaf(keys, 'get', 'show one API key (never its secret)')
    .argument('<id>', 'API key id (key_…)')
    .action(async (id: string, o: JsonOption) => {
      const key = await withRuntime(async (rt) => {
        const found = await findKey(rt, id);
        return await rt.services.apiKeys.get(systemPrincipal(found.account_id), found.project_id, id);
      });
      output(o.json, presentApiKey(key), JSON.stringify(presentApiKey(key), null, 2));
    });

  for (const [name, description] of [
    ['revoke', 'revoke an API key: it stops working at once and stays listed as revoked'],
    ['delete', 'the same as revoke (as DELETE on /v1): the key stays listed as revoked'],
  ] as const) {
    leaf(keys, name, description)
      .argument('<id>', 'API key id (key_…)')
      .action(async (id: string, o: JsonOption) => {
        const key = await withRuntime(async (rt) => {
          const found = await findKey(rt, id);
          return await rt.services.apiKeys.revoke(systemPrincipal(found.account_id), found.project_id, id);
        });
        output(o.json, presentApiKey(key), `revoked API key ${key._id} (${key.name})`);
      });
  }

  leaf(keys, 'rotate', 'add a new signing key in front; restart each instance to sign with it (old keys keep verifying)').action(async (o: JsonOption) => {
    const result = await rotateSigningKey(loadConfig().keysDir);
    output(o.json, result, `new signing key ${result.kid}; restart each instance to sign with it (old keys keep verifying)`);
  });

  leaf(keys, 'retire', 'remove an old signing key (never the current one)')
    .option('--kid <kid>', 'the key id to remove')
    .action(async (o: JsonOption & { kid?: string }) => {
      if (!o.kid) throw new UsageError('missing --kid');
      const result = await retireSigningKey(loadConfig().keysDir, o.kid);
      output(o.json, result, `retired ${o.kid}; remaining: ${result.kids.join(', ')}`);
    });

  leaf(keys, 'rotate-cookies', 'add a new cookie signing key in front (the previous ones still verify)').action(async (o: JsonOption) => {
    const result = await rotateCookieKeys(loadConfig().keysDir);
    output(o.json, result, `new cookie key in front (${result.count} kept)`);
  });

  leaf(keys, 'rotate-data', 'add a new current data key for secret configuration values (then `configs reencrypt`)').action(async (o: JsonOption) => {
    const result = await rotateDataKey(loadConfig().keysDir);
    output(o.json, result, `new data key ${result.current}`);
  });
}

function accountsCommands(program: Command): void {
  const accounts = program.command('accounts').description('accounts (tenants): list, show, delete');

  leaf(accounts, 'list', 'list every account with its numbers of users, clients and projects', { list: true }).action(async (o: JsonOption & { page: number; perPage: number }) => {
    const page = pageOf(o);
    const result = await withRuntime((rt) => rt.services.accounts.list(page));
    outputList(o.json, page, result, presentAccount, (a) => `${a.account._id}  ${a.account.name}  users: ${a.users}  clients: ${a.oauth_clients}  projects: ${a.projects}`);
  });

  leaf(accounts, 'get', 'show one account')
    .argument('<id>', 'account id (acct_…)')
    .action(async (id: string, o: JsonOption) => {
      const summary = await withRuntime((rt) => rt.services.accounts.get(id));
      output(o.json, presentAccount(summary), JSON.stringify(presentAccount(summary), null, 2));
    });

  leaf(accounts, 'delete', 'delete an account and everything in it: OAuth clients, projects, API keys, users (the audit log is kept)')
    .argument('<id>', 'account id (acct_…)')
    .option('--yes', 'confirm: this cannot be undone')
    .action(async (id: string, o: JsonOption & { yes?: boolean }) => {
      if (!o.yes) throw new UsageError(`deleting ${id} removes everything in it and cannot be undone: add --yes`);
      const { progress } = progressLogger();
      const result = await withRuntime((rt) => rt.services.accounts.delete(id, progress));
      const d = result.deleted;
      output(
        o.json,
        { deleted: { id: result.account._id, name: result.account.name }, ...d },
        `deleted account ${result.account._id} (${result.account.name}): ${d.users} user(s), ${d.oauth_clients} client(s), ${d.projects} project(s); ${d.revoked_grants} grant(s) revoked`,
      );
    });
}

function operationsCommands(program: Command): void {
  const db = program.command('db').description('the database: indexes and the embedded FerretDB');

  leaf(db, 'migrate', 'create or update every index (idempotent)').action(async (o: JsonOption) => {
    const { progress } = progressLogger();
    progress('creating and updating indexes…');
    const result = await withRuntime((rt) => withHeartbeat(migrate(rt.database.db, rt.repos), (s) => progress(`still migrating (${s} s)…`)));
    progress(`indexes are up to date (${result.collections.length} collections)`);
    output(o.json, { ok: true, ...result }, `indexes are up to date (${result.collections.length} collections)`);
  });

  leaf(db, 'build-embedded', 'build the embedded database (FerretDB) now instead of at the first start').action(async (o: JsonOption) => {
    const config = loadConfig();
    const { logger, progress } = progressLogger();
    const started = Date.now();
    const binary = await withHeartbeat(ensureFerretdbBinary(config.rootDir, FERRETDB_VERSION, logger, config.toolsDir), (s) => progress(`still building FerretDB ${FERRETDB_VERSION} (${s} s)…`));
    const patches = ferretdbPatchSet(config.rootDir);
    output(
      o.json,
      {
        ok: true,
        binary,
        version: FERRETDB_VERSION,
        patches: patches.files.map((f) => path.basename(f)),
        source: ferretdbSourceDir(config.toolsDir, FERRETDB_VERSION, patches),
        seconds: Math.round((Date.now() - started) / 1000),
      },
      `embedded database ready: ${binary}`,
    );
  });

  const configs = program.command('configs').description('configuration values');
  leaf(configs, 'reencrypt', 're-seal every secret configuration value with the current data key')
    .addHelpText(
      'after',
      '\nRun it after `keys rotate-data` once every instance has restarted. When by_key lists only the current key,\nolder data keys may be removed from keys/data-keys.json.',
    )
    .action(async (o: JsonOption) => {
      const { progress } = progressLogger();
      progress('re-encrypting secret configuration values…');
      const result = await withRuntime((rt) =>
        withHeartbeat(rt.services.configurations.reencryptSecrets(), (s) => progress(`still re-encrypting (${s} s)…`)),
      );
      const remaining = Object.entries(result.by_key)
        .filter(([kid]) => kid !== result.current_key)
        .reduce((n, [, count]) => n + count, 0);
      output(
        o.json,
        result,
        `re-encrypted ${result.reencrypted} secret value(s) with ${result.current_key}` +
          (result.skipped ? `; ${result.skipped} changed meanwhile (run again)` : '') +
          (result.failed.length ? `; ${result.failed.length} could not be decrypted: ${result.failed.map((f) => f.id).join(', ')}` : '') +
          (remaining ? `; ${remaining} still under older keys` : '; no value uses an older key'),
      );
      if (result.failed.length) exitCode = 1;
    });
}

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
  operationsCommands(program);
  return program;
}

/** `projects explode` → "unknown command: projects explode" with the help of the nearest command. */
function checkCommandPath(program: Command, argv: string[]): void {
  const [group, action] = argv;
  if (!group || group.startsWith('-') || group === 'help') return;
  const found = program.commands.find((c) => c.name() === group);
  if (!found) throw new UsageError(`unknown command: ${[group, action].filter(Boolean).join(' ')}`, program.helpInformation());
  if (found.commands.length && action && !action.startsWith('-') && action !== 'help' && !found.commands.some((c) => c.name() === action))
    throw new UsageError(`unknown command: ${group} ${action}`, found.helpInformation());
  if (found.commands.length && !action) throw new UsageError(`${group}: which one?`, found.helpInformation());
}

interface Failure {
  code: string;
  message: string;
  details?: unknown;
  exit: number;
  human: string;
}

function describeFailure(err: unknown, commandPath: string): Failure {
  if (err instanceof UsageError) return { code: 'usage', message: err.message, exit: 2, human: `slipway: ${err.message}${err.help ? `\n\n${err.help}` : ''}` };
  if (err instanceof CommanderError) {
    const message = err.message.replace(/^error: /, '');
    return { code: 'usage', message, exit: 2, human: `slipway: ${message}\n(see \`slipway ${commandPath ? `${commandPath} ` : ''}--help\`)` };
  }
  if (err instanceof ConfigError) return { code: 'invalid_configuration', message: err.message, details: err.problems, exit: 2, human: err.message };
  if (err instanceof EmbeddedDatabaseUnavailable) return { code: 'embedded_database_unavailable', message: err.message, exit: 2, human: err.message };
  if (err instanceof InputError) return { code: 'invalid_input', message: err.message, exit: 2, human: `slipway: ${err.message}` };
  if (err instanceof AppError) {
    const details = err.details?.map((d) => `  - ${d.field}: ${d.message}`).join('\n');
    return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}), exit: 1, human: `slipway: ${err.message}${details ? `\n${details}` : ''}` };
  }
  return { code: 'error', message: (err as Error).message, exit: 1, human: `slipway: ${(err as Error).message}` };
}

export async function run(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const program = buildProgram();
  exitCode = 0;
  try {
    if (argv.length === 0) throw new UsageError('which command?', program.helpInformation());
    checkCommandPath(program, argv);
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    // --help and --version end the parse with an "error" whose exit code is 0.
    if (err instanceof CommanderError && err.exitCode === 0) return 0;
    const commandPath = argv.slice(0, 2).filter((a) => !a.startsWith('-')).join(' ');
    const failure = describeFailure(err, commandPath);
    if (json) console.error(JSON.stringify({ error: { code: failure.code, message: failure.message, ...(failure.details ? { details: failure.details } : {}) } }, null, 2));
    else console.error(failure.human);
    return failure.exit;
  }
}
