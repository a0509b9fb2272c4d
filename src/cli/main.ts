import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/index.ts';
import { EmbeddedDatabaseUnavailable, FERRETDB_VERSION, ensureFerretdbBinary } from '../db/embeddedFerretdb.ts';
import { AppError, notFound } from '../errors.ts';
import { retireSigningKey, rotateCookieKeys, rotateDataKey, rotateSigningKey, loadOrCreateKeys } from '../keys/keystore.ts';
import { createLogger } from '../logger.ts';
import { migrate } from '../repositories/index.ts';
import { CreateApiKeyInput, createApiKey, presentIssuedApiKey } from '../services/apiKeys.ts';
import { reencryptConfigurations } from '../services/configurations.ts';
import { SYSTEM_ACTOR } from '../services/events.ts';
import { createClient, presentClient } from '../services/oauthClients.ts';
import { openRuntime, type Runtime } from '../services/runtime.ts';
import { createSecretBox } from '../services/secretBox.ts';
import { CreateUserInput, createUser, presentUser } from '../services/users.ts';

const USAGE = `Usage: slipway <command> [options]

Commands:
  users create   --email E --password P --name N --role viewer|developer|admin|owner [--account ACCT]
  clients create --name N --redirect-uri URI [--redirect-uri URI ...] [--public | --confidential]
                 [--first-party] [--grant authorization_code|refresh_token|client_credentials ...]
                 [--scope "read write admin"] [--account ACCT]
  db migrate     create or update every index (idempotent)
  db build-embedded
                 build the embedded database (FerretDB) now instead of at the first start
  keys create    --project PROJ --name N --scopes read|write|admin[,...] [--expires-at ISO-8601]
                 a project API key; the key is printed once and never again
  keys list | rotate | retire --kid KID | rotate-cookies | rotate-data
                 signing, cookie and data keys in keys/
  configs reencrypt
                 re-seal every secret configuration value with the current data key; run it after
                 \`keys rotate-data\` once every instance has restarted. When by_key lists only the
                 current key, older data keys may be removed from keys/data-keys.json.

Every command accepts --json for machine-readable output. Configuration comes from config/ and the
environment (MONGODB_URI, KEYS_DIR, ...), exactly as for the server.`;

class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

type Values = Record<string, string | boolean | string[] | undefined>;

function parse(args: string[], options: Options): Values {
  try {
    return parseArgs({ args, options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean' } }, strict: true, allowPositionals: false }).values as Values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function need(values: Record<string, unknown>, ...names: string[]): void {
  const missing = names.filter((n) => values[n] === undefined || values[n] === '');
  if (missing.length) throw new UsageError(`missing ${missing.map((n) => `--${n}`).join(', ')}`);
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

function output(json: boolean, value: unknown, human: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : human);
}

async function withRuntime<T>(config: Config, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', destination: process.stderr });
  const rt = await openRuntime(config, logger);
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

async function singleAccount(rt: Runtime): Promise<string> {
  const accounts = await rt.repos.accounts.collection.find({}, { projection: { _id: 1 } }).limit(2).toArray();
  if (accounts.length === 1) return accounts[0]!._id;
  throw new UsageError(accounts.length ? 'several accounts exist: pass --account ACCT' : 'no account exists yet: create a user first');
}

export async function run(argv: string[]): Promise<number> {
  const [group, action, ...rest] = argv;
  if (!group || group === '--help' || group === 'help') {
    console.log(USAGE);
    return group ? 0 : 2;
  }
  const config = loadConfig();
  const key = `${group} ${action ?? ''}`.trim();

  switch (key) {
    case 'users create': {
      const v = parse(rest, { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, account: { type: 'string' } });
      const input = {
        email: v.email as string,
        password: v.password as string,
        name: v.name as string,
        role: v.role as 'owner',
        ...(v.account ? { account_id: v.account as string } : {}),
      };
      // Every problem at once (missing flags included), before touching the database.
      const checked = CreateUserInput.safeParse(input);
      if (!checked.success) throw new UsageError(`invalid arguments:\n${flagProblems(input, checked.error.issues, { account_id: 'account' })}`);
      const user = await withRuntime(config, (rt) => createUser(rt.repos, input));
      output(!!v.json, presentUser(user), `created user ${user._id} (${user.email}, ${user.role}) in account ${user.account_id}`);
      return 0;
    }
    case 'clients create': {
      const v = parse(rest, {
        name: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        public: { type: 'boolean' },
        confidential: { type: 'boolean' },
        'first-party': { type: 'boolean' },
        grant: { type: 'string', multiple: true },
        scope: { type: 'string' },
        account: { type: 'string' },
      });
      need(v, 'name');
      if (v.public && v.confidential) throw new UsageError('--public and --confidential exclude each other');
      const result = await withRuntime(config, async (rt) =>
        createClient(rt.repos, {
          account_id: (v.account as string | undefined) ?? (await singleAccount(rt)),
          client_name: v.name as string,
          redirect_uris: (v['redirect-uri'] as string[] | undefined) ?? [],
          token_endpoint_auth_method: v.confidential ? 'client_secret_basic' : 'none',
          ...(v.grant ? { grant_types: v.grant as ('authorization_code' | 'refresh_token' | 'client_credentials')[] } : {}),
          ...(v.scope ? { scope: v.scope as string } : {}),
          first_party: !!v['first-party'],
        }),
      );
      const presented = { ...presentClient(result.client), ...(result.clientSecret ? { client_secret: result.clientSecret } : {}) };
      output(
        !!v.json,
        presented,
        `created client ${result.client._id} (${result.client.client_name})` +
          (result.clientSecret ? `\nclient_secret: ${result.clientSecret}\nStore it now: it is not shown again.` : ''),
      );
      return 0;
    }
    case 'keys create': {
      const v = parse(rest, { project: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, 'expires-at': { type: 'string' } });
      const input: Record<string, unknown> = {
        name: v.name,
        scopes: typeof v.scopes === 'string' ? v.scopes.split(/[\s,]+/).filter(Boolean) : undefined,
        ...(v['expires-at'] ? { expires_at: v['expires-at'] } : {}),
      };
      // Every problem at once (missing flags included), before touching the database.
      const checked = CreateApiKeyInput.safeParse(input);
      const problems = [v.project ? '' : '  - --project: required', checked.success ? '' : flagProblems(input, checked.error.issues, { expires_at: 'expires-at' })];
      if (!checked.success || !v.project) throw new UsageError(`invalid arguments:\n${problems.filter(Boolean).join('\n')}`);
      const issued = await withRuntime(config, async (rt) => {
        const project = await rt.repos.projects.findById(v.project as string);
        if (!project) throw notFound(`No such project: ${v.project as string}.`);
        return await createApiKey(rt.repos, { accountId: project.account_id, actor: SYSTEM_ACTOR }, project._id, checked.data);
      });
      output(
        !!v.json,
        presentIssuedApiKey(issued),
        `created API key ${issued.apiKey._id} (${issued.apiKey.name}) for project ${issued.apiKey.project_id}, scopes: ${issued.apiKey.scopes.join(' ')}` +
          `\nkey: ${issued.key}\nStore it now: it is not shown again.`,
      );
      return 0;
    }
    case 'db migrate': {
      const v = parse(rest, {});
      const result = await withRuntime(config, (rt) => migrate(rt.database.db, rt.repos));
      output(!!v.json, { ok: true, ...result }, `indexes are up to date (${result.collections.length} collections)`);
      return 0;
    }
    case 'db build-embedded': {
      const v = parse(rest, {});
      const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'info', destination: process.stderr });
      const started = Date.now();
      const binary = await ensureFerretdbBinary(config.rootDir, FERRETDB_VERSION, logger, config.toolsDir);
      output(!!v.json, { ok: true, binary, version: FERRETDB_VERSION, seconds: Math.round((Date.now() - started) / 1000) }, `embedded database ready: ${binary}`);
      return 0;
    }
    case 'keys list': {
      const v = parse(rest, {});
      const keys = await loadOrCreateKeys(config.keysDir);
      const value = { signing: keys.signing.keys.map((k, i) => ({ kid: k.kid, alg: k.alg, current: i === 0 })), cookies: keys.cookies.length, data: { current: keys.data.current, ids: Object.keys(keys.data.keys) } };
      output(!!v.json, value, JSON.stringify(value, null, 2));
      return 0;
    }
    case 'keys rotate': {
      const v = parse(rest, {});
      const result = await rotateSigningKey(config.keysDir);
      output(!!v.json, result, `new signing key ${result.kid}; restart each instance to sign with it (old keys keep verifying)`);
      return 0;
    }
    case 'keys retire': {
      const v = parse(rest, { kid: { type: 'string' } });
      need(v, 'kid');
      const result = await retireSigningKey(config.keysDir, v.kid as string);
      output(!!v.json, result, `retired ${v.kid as string}; remaining: ${result.kids.join(', ')}`);
      return 0;
    }
    case 'keys rotate-cookies': {
      const v = parse(rest, {});
      const result = await rotateCookieKeys(config.keysDir);
      output(!!v.json, result, `new cookie key in front (${result.count} kept)`);
      return 0;
    }
    case 'keys rotate-data': {
      const v = parse(rest, {});
      const result = await rotateDataKey(config.keysDir);
      output(!!v.json, result, `new data key ${result.current}`);
      return 0;
    }
    case 'configs reencrypt': {
      const v = parse(rest, {});
      const result = await withRuntime(config, (rt) =>
        reencryptConfigurations({ configurations: rt.repos.configurations, locks: rt.repos.locks, secretBox: createSecretBox(rt.keys.data) }),
      );
      const remaining = Object.entries(result.by_key)
        .filter(([kid]) => kid !== result.current_key)
        .reduce((n, [, count]) => n + count, 0);
      output(
        !!v.json,
        result,
        `re-encrypted ${result.reencrypted} secret value(s) with ${result.current_key}` +
          (result.skipped ? `; ${result.skipped} changed meanwhile (run again)` : '') +
          (result.failed.length ? `; ${result.failed.length} could not be decrypted: ${result.failed.map((f) => f.id).join(', ')}` : '') +
          (remaining ? `; ${remaining} still under older keys` : '; no value uses an older key'),
      );
      return result.failed.length ? 1 : 0;
    }
    default:
      throw new UsageError(`unknown command: ${key}`);
  }
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (err) {
  if (err instanceof UsageError) {
    console.error(`slipway: ${err.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (err instanceof ConfigError || err instanceof EmbeddedDatabaseUnavailable) {
    console.error(err.message);
    process.exitCode = 2;
  } else if (err instanceof AppError) {
    const details = err.details?.map((d) => `  - ${d.field}: ${d.message}`).join('\n');
    console.error(`slipway: ${err.message}${details ? `\n${details}` : ''}`);
    process.exitCode = 1;
  } else {
    console.error(`slipway: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
