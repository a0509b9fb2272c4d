import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/*
 * One typed configuration, validated once at start. Sources, later wins: the defaults declared with
 * each setting (SETTINGS, below), `config/<NODE_ENV>.json` (optional), `config/local.json` (optional,
 * git-ignored by convention), then environment variables. Every problem is reported at once.
 */

/** An IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`), as ipaddr.js reads them. */
function isCidrOrAddress(value: string): boolean {
  if (ipaddr.isValid(value)) return true;
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

// One check, so a bad value yields one problem rather than "Invalid URL" plus "must be http(s)".
const Url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((v) => v.replace(/\/+$/, ''));

/** One setting, declared once: the variable that sets it, its type and rules, and its default. */
interface Setting<S extends z.ZodType = z.ZodType> {
  /** The environment variable that sets it (the table in docs/OPERATIONS.md, "Configuration", lists them all). */
  env: string;
  schema: S;
  /** Its value when no file or variable sets it; none: unset. */
  default?: z.output<S>;
  /** How the variable's text becomes a value (default: the text, which the schema coerces). */
  fromEnv?: (text: string) => unknown;
}

const setting = <S extends z.ZodType>(env: string, schema: S, defaultValue?: z.output<S>): Setting<S> => ({ env, schema, ...(defaultValue !== undefined ? { default: defaultValue } : {}) });

/** A yes/no setting: its variable is `true` or `1` for yes, anything else for no. */
const flag = (env: string, defaultValue: boolean): Setting<z.ZodCoercedBoolean> => ({ ...setting(env, z.coerce.boolean(), defaultValue), fromEnv: (text) => text === 'true' || text === '1' });

/** A whole number from `min` to `max` (a variable's text is read as one). */
const whole = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A number, fractions allowed, from `min` to `max`. */
const between = (min: number, max: number) => z.coerce.number().min(min).max(max);

/** A list: a JSON array in a file, comma- or space-separated in a variable; each item checked with `item`. */
const listOf = (item: z.ZodType<string, string>) => z.union([z.array(z.string()), z.string().transform((v) => v.split(/[\s,]+/).filter(Boolean))]).pipe(z.array(item));

/**
 * Every setting, once: its name here is its key in the JSON files and in `Config`; its variable, rules
 * and default are beside it, and `ConfigSchema`, the variables read and the defaults are made from this.
 */
const SETTINGS = {
  host: setting('HOST', z.string().min(1), '127.0.0.1'),
  port: setting('PORT', whole(0, 65535), 3000),
  /**
   * The address users and clients reach Slipway at: the OAuth issuer, discovery, redirects and links
   * are built from it, never from a request's Host. Optional on a loopback host (it defaults to
   * `http://HOST:PORT`, the address actually served); required, and https, anywhere else.
   */
  publicUrl: setting('PUBLIC_URL', Url.optional()),
  mongodbUri: setting('MONGODB_URI', z.string().regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://').optional()),
  mongodbDb: setting('MONGODB_DB', z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'letters, digits, _ and - only (at most 63)'), 'slipway'),
  logLevel: setting('LOG_LEVEL', LogLevel, 'info'),
  keysDir: setting('KEYS_DIR', z.string().min(1), 'keys'),
  /**
   * Data key ids (`dk_…`) that keys/ has lost and that the operator accepts as gone: values they seal
   * stay unreadable (409 secret_unreadable) until set again. Without it a start refuses when the
   * database holds values sealed by a key keys/ lacks (src/services/dataKeyCheck.ts).
   */
  acceptLostDataKeys: setting('ACCEPT_LOST_DATA_KEYS', listOf(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be data key ids (dk_…)')), []),
  dataDir: setting('DATA_DIR', z.string().min(1), 'data'),
  /** Where the embedded database's binary is built and cached. */
  toolsDir: setting('TOOLS_DIR', z.string().min(1), '.tools'),
  /**
   * Shorthand for one proxy in front (`proxyHops: 1`) when neither `proxyHops` nor `trustedProxies` is
   * set: the client address is then the right-most `X-Forwarded-For` entry, the one that proxy wrote.
   */
  trustProxy: flag('TRUST_PROXY', false),
  /**
   * How many proxies stand in front of every request (0: none). The client address is the N-th
   * `X-Forwarded-For` entry from the right: the entries further left were written by the client.
   */
  proxyHops: setting('PROXY_HOPS', whole(0, 10), 0),
  /**
   * Addresses (CIDRs) of the proxies in front. When the peer is one of them, the client address is the
   * right-most `X-Forwarded-For` entry that is not; entries left of it are the client's own writing.
   */
  trustedProxies: setting('TRUSTED_PROXIES', listOf(z.string().refine(isCidrOrAddress, 'must be an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)')), []),
  shutdownGraceMs: setting('SHUTDOWN_GRACE_MS', whole(0, 120_000), 10000),
  sweepIntervalSeconds: setting('SWEEP_INTERVAL_SECONDS', whole(1, 3600), 60),
  /**
   * Token endpoint requests per minute per client, shared by every instance (docs/product.md §6: 600). Raise it
   * only to measure throughput (`npm run bench` does); production keeps the contract's value.
   */
  tokenRateLimitPerMinute: setting('TOKEN_RATE_LIMIT_PER_MINUTE', whole(1, 10_000_000), 600),
  /** /v1 requests per hour per credential, shared by every instance (docs/product.md §6: 5,000). */
  apiRateLimitPerHour: setting('API_RATE_LIMIT_PER_HOUR', whole(1, 10_000_000), 5000),
  /**
   * How often each instance reloads the revoked-grant list (incrementally). A revoked grant's access
   * tokens are refused at most this many seconds later; docs/product.md §2 allows 60.
   */
  revocationRefreshSeconds: setting('REVOCATION_REFRESH_SECONDS', between(0.05, 30), 15),
  /**
   * How long an instance trusts a loaded user, OAuth client or API key (role, account, existence,
   * status) before reading it again: a removed user or client, a changed role, or an API key revoked
   * or rotated on another instance, takes effect within this bound.
   */
  principalCacheSeconds: setting('PRINCIPAL_CACHE_SECONDS', between(0, 30), 15),

  // Per-account quotas (one tenant cannot crowd out the others). Counts apply to what an account's
  // admins and apps create; the operator (admin CLI) is not held to them, but what it creates counts.
  /** Projects per account. */
  quotaProjects: setting('QUOTA_PROJECTS', whole(1, 1_000_000), 1000),
  /** OAuth clients per account. */
  quotaOauthClients: setting('QUOTA_OAUTH_CLIENTS', whole(1, 1_000_000), 100),
  /** Active (not revoked) API keys per account, over all its projects. */
  quotaApiKeys: setting('QUOTA_API_KEYS', whole(1, 1_000_000), 1000),
  /** Webhook endpoints per account. */
  quotaWebhooks: setting('QUOTA_WEBHOOKS', whole(1, 1_000_000), 50),
  /** Users per account. */
  quotaUsers: setting('QUOTA_USERS', whole(1, 1_000_000), 1000),
  /**
   * /v1 requests per hour per account, all its credentials together (keys, tokens, sessions), counted
   * after each credential's own limit and shared by every instance.
   */
  accountRequestsPerHour: setting('ACCOUNT_REQUESTS_PER_HOUR', whole(1, 100_000_000), 50000),

  // Login throttling (authorization server hardening): sign-in attempts per minute, shared by every
  // instance. Keyed so that failures from one source never lock the user out of another source.
  /** Attempts per minute for one e-mail address from one source address (a targeted guess). */
  loginPerEmailAndSourcePerMinute: setting('LOGIN_PER_EMAIL_AND_SOURCE_PER_MINUTE', whole(1, 10_000), 10),
  /** Attempts per minute from one source address, whatever the e-mail (password spraying); also, counted apart, device code page submissions (docs/product.md §12). */
  loginPerSourcePerMinute: setting('LOGIN_PER_SOURCE_PER_MINUTE', whole(1, 10_000), 30),
  /** Attempts per minute for one e-mail address from all sources together: a ceiling for distributed guessing. */
  loginPerEmailPerMinute: setting('LOGIN_PER_EMAIL_PER_MINUTE', whole(1, 100_000), 100),
  /**
   * Attempts per minute from a browser that signed this user in before (its device cookie): such
   * attempts are counted here instead of per e-mail and per source, so others cannot lock it out.
   */
  loginPerDevicePerMinute: setting('LOGIN_PER_DEVICE_PER_MINUTE', whole(1, 10_000), 10),
  // Token endpoint budgets: only failed requests are counted per source, so junk sent by one source
  // never spends what a client needs elsewhere; the per-client total counts issued tokens only.
  /** Failed token requests (bad client authentication, invalid grant, …) per minute from one source. */
  tokenFailuresPerSourcePerMinute: setting('TOKEN_FAILURES_PER_SOURCE_PER_MINUTE', whole(1, 1_000_000), 300),
  /** Failed token requests per minute naming one client from one source. */
  tokenFailuresPerClientAndSourcePerMinute: setting('TOKEN_FAILURES_PER_CLIENT_AND_SOURCE_PER_MINUTE', whole(1, 1_000_000), 30),
  // Webhooks (docs/product.md §7)
  /** Lets webhook URLs point at loopback (and use http there): development and tests only. */
  webhookAllowLoopback: flag('WEBHOOK_ALLOW_LOOPBACK', false),
  // CI token exchange (docs/product.md §13)
  /** Lets trust policies name an issuer on loopback (and over http there): development and tests only. */
  federationAllowLoopback: flag('FEDERATION_ALLOW_LOOPBACK', false),
  /** How often each instance looks for due deliveries (the pending set is kept small, so this is cheap). */
  webhookPollIntervalMs: setting('WEBHOOK_POLL_INTERVAL_MS', whole(10, 60_000), 1000),
  /** First retry delay; each failed attempt doubles it (with jitter), up to an hour. */
  webhookRetryBaseMs: setting('WEBHOOK_RETRY_BASE_MS', whole(1, 3_600_000), 10000),
  /** How long a delivery keeps being retried; after that long of failures the endpoint is disabled. */
  webhookRetryWindowSeconds: setting('WEBHOOK_RETRY_WINDOW_SECONDS', between(0.1, 7 * 86_400), 86400),
  /** One delivery attempt's limit: connecting, sending and reading the answer. */
  webhookTimeoutMs: setting('WEBHOOK_TIMEOUT_MS', whole(50, 30_000), 10000),
  /** Attempts in flight to one endpoint at once, across all instances, so one slow endpoint cannot take every worker. */
  webhookEndpointConcurrency: setting('WEBHOOK_ENDPOINT_CONCURRENCY', whole(1, 64), 2),
  /** Failed attempts in a row after which an endpoint's deliveries wait for one probe at a time, with exponential backoff. */
  webhookCircuitFailures: setting('WEBHOOK_CIRCUIT_FAILURES', whole(1, 1000), 5),
  // Deployment logs and live updates (docs/product.md §10)
  /** Lines one deployment's log holds; past it the append is refused (409 `log_full`) and the log is cut. */
  logMaxLines: setting('LOG_MAX_LINES', whole(1, 100_000_000), 100_000),
  /** Bytes of line text (UTF-8) one deployment's log holds; past it, as for LOG_MAX_LINES. */
  logMaxBytes: setting('LOG_MAX_BYTES', whole(1, 1024 * 1024 * 1024 * 16), 50 * 1024 * 1024),
  /** Days a deployment's log is kept after the deployment was created; then the sweep removes it in batches. */
  logRetentionDays: setting('LOG_RETENTION_DAYS', between(0.0001, 3650), 30),
  /** How often each instance looks for waiting deployments whose approvals are met and timer has run out (docs/product.md §9: moved within 5 s). */
  schedulerIntervalMs: setting('SCHEDULER_INTERVAL_MS', whole(100, 60_000), 1000),
  /** How often each instance looks for new lines and status changes of the deployments someone follows there. */
  logPollIntervalMs: setting('LOG_POLL_INTERVAL_MS', whole(10, 1000), 250),
  /** The comment line an event stream sends when it has sent nothing else for this long (keeps proxies open). */
  logHeartbeatMs: setting('LOG_HEARTBEAT_MS', whole(10, 60_000), 15_000),
  /** Event streams one credential holds open at once, across every instance; the next is 429. */
  logStreamsPerCredential: setting('LOG_STREAMS_PER_CREDENTIAL', whole(1, 1000), 20),
  /** How often an open event stream checks its credential again (revoked, expired, signed out: the stream ends). */
  logStreamRecheckMs: setting('LOG_STREAM_RECHECK_MS', whole(10, 60_000), 1000),
  /** How long a stream waits for a slow reader to take what was written before it closes it (resumable with Last-Event-ID). */
  logStreamStallMs: setting('LOG_STREAM_STALL_MS', whole(10, 600_000), 30_000),
  // Crash-safe writes and bounded outages.
  /**
   * How long a request waits for a concurrent request with the same `Idempotency-Key` to finish before
   * answering 409 `conflict` with Retry-After. Kept under the 2 s an outage may take to answer.
   */
  idempotencyWaitMs: setting('IDEMPOTENCY_WAIT_MS', whole(0, 10_000), 1000),
  /**
   * After how long a request still pending under an `Idempotency-Key` (its instance or the database
   * died mid-request) is run again by a retry, under the resource id it reserved.
   */
  idempotencyTakeoverSeconds: setting('IDEMPOTENCY_TAKEOVER_SECONDS', between(0.1, 3600), 10),
  /** How long the driver looks for a reachable MongoDB before a request answers 503. */
  mongodbTimeoutMs: setting('MONGODB_TIMEOUT_MS', whole(100, 30_000), 1000),
  /**
   * How long connecting to MongoDB, and the driver's periodic check of it, may take before the database
   * counts as down: long enough for a slow but live server (a busy database is not a dead one).
   */
  mongodbConnectTimeoutMs: setting('MONGODB_CONNECT_TIMEOUT_MS', whole(500, 120_000), 10000),
  // --- Browser apps and operators: CORS and metrics ---
  /**
   * Origins (scheme://host[:port]) allowed to call /v1 and the OAuth endpoints from a browser, in
   * addition to the origins of every registered client's redirect URIs.
   */
  corsOrigins: setting(
    'CORS_ORIGINS',
    listOf(z.url({ protocol: /^https?$/, error: 'must be an http(s) origin' }).refine((v) => new URL(v).origin === v.replace(/\/+$/, ''), 'must be an origin: scheme://host[:port], no path')),
    [],
  ),
  /** How long the origins of registered clients are trusted before they are read again (other instances' changes). */
  corsRefreshSeconds: setting('CORS_REFRESH_SECONDS', between(0, 3600), 30),
  /**
   * `host:port` of a separate listener that serves only /metrics (for a private network or a local
   * agent); '' to serve /metrics on the main port instead, behind `metricsToken`.
   */
  metricsListen: setting('METRICS_LISTEN', z.union([z.literal(''), z.string().regex(/^[^\s]+:\d{1,5}$/, 'must be host:port, or empty')]), ''),
  /** Bearer token /metrics requires when set (at least 32 characters); '' for none. */
  metricsToken: setting('METRICS_TOKEN', z.union([z.literal(''), z.string().min(32, 'must be at least 32 characters, or empty')]), ''),
  // HTTP edge (server timeouts)
  /** Time a client has to send a request's complete headers; a slower connection gets 408 and is closed. */
  httpHeadersTimeoutMs: setting('HTTP_HEADERS_TIMEOUT_MS', whole(100, 300_000), 10000),
  /** Time a client has to send a whole request (headers and body); at least the headers timeout. */
  httpRequestTimeoutMs: setting('HTTP_REQUEST_TIMEOUT_MS', whole(100, 600_000), 30000),

  // --- Performance ---
  /**
   * SQLite `synchronous` of the embedded database (no MONGODB_URI): `normal` (WAL stays consistent, the
   * last transactions may be lost on power loss or an OS crash) or `full` (every commit reaches the disk).
   */
  embeddedSqliteSynchronous: setting('EMBEDDED_SQLITE_SYNCHRONOUS', z.enum(['normal', 'full']), 'normal'),


  // --- Authorization server ---
  /**
   * Reuse grace window of rotated refresh tokens: for this many seconds after a refresh token was
   * used, presenting it again refreshes once more (a new refresh token of the same grant) instead of
   * being treated as reuse, which revokes the grant. For apps whose concurrent requests refresh at once.
   * 0 (default): every second use is reuse. At most 60.
   */
  oauthRefreshReuseGraceSeconds: setting('OAUTH_REFRESH_REUSE_GRACE_SECONDS', whole(0, 60), 0),
  /**
   * DPoP server nonces (RFC 9449 §8–9): when true, every DPoP proof (token endpoint and /v1) must carry
   * a nonce this server issued (`DPoP-Nonce`); the first call without one gets `use_dpop_nonce`. When
   * false (default), nonces are offered and checked when present; a proof is then bound in time by
   * its `iat` and its single-use `jti`.
   */
  dpopNonceRequired: flag('DPOP_NONCE_REQUIRED', false),
} satisfies Record<string, Setting>;

type Settings = typeof SETTINGS;

export const ConfigSchema = z
  .object(Object.fromEntries(Object.entries(SETTINGS).map(([key, s]) => [key, s.schema])) as { [K in keyof Settings]: Settings[K]['schema'] })
  .strict()
  .refine((c) => c.httpRequestTimeoutMs >= c.httpHeadersTimeoutMs, {
    path: ['httpRequestTimeoutMs'],
    message: 'must be at least httpHeadersTimeoutMs',
  });

export type Config = Omit<z.infer<typeof ConfigSchema>, 'publicUrl'> & {
  /** PUBLIC_URL, or `http://HOST:PORT` on a loopback host (see `publicUrl` in the schema). */
  publicUrl: string;
  /** Root of the project (where package.json, config/ and keys/ live). */
  rootDir: string;
  /** `{publicUrl}/oauth`: the OAuth issuer. */
  issuer: string;
  /** `{publicUrl}/v1`: the audience of every access token. */
  apiAudience: string;
};

/** Each setting's key, variable and default, in declaration order (docs/OPERATIONS.md's table lists the same). */
export const SETTING_LIST: readonly { key: string; env: string; default?: unknown }[] = Object.entries(SETTINGS).map(([key, s]) => ({ key, env: s.env, ...('default' in s ? { default: s.default } : {}) }));

const DEFAULTS = Object.fromEntries(SETTING_LIST.filter((s) => 'default' in s).map((s) => [s.key, s.default]));

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');

function readJson(file: string, problems: string[]): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    problems.push(`${file}: must contain a JSON object`);
  } catch (err) {
    problems.push(`${file}: ${(err as Error).message}`);
  }
  return {};
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  rootDir?: string;
  /** Values that win over every other source (tests use this). */
  overrides?: Partial<z.input<typeof ConfigSchema>>;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const rootDir = options.rootDir ?? PROJECT_ROOT;
  const problems: string[] = [];
  const configDir = path.join(rootDir, 'config');
  const merged: Record<string, unknown> = {
    ...DEFAULTS,
    ...(env.NODE_ENV ? readJson(path.join(configDir, `${env.NODE_ENV}.json`), problems) : {}),
    ...readJson(path.join(configDir, 'local.json'), problems),
  };
  for (const [key, s] of Object.entries(SETTINGS) as [string, Setting][]) {
    const value = env[s.env];
    if (value !== undefined && value !== '') merged[key] = s.fromEnv ? s.fromEnv(value) : value;
  }
  Object.assign(merged, options.overrides ?? {});

  const result = ConfigSchema.safeParse(merged);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const key = issue.path.join('.');
      const envName = SETTING_LIST.find((s) => s.key === key)?.env;
      problems.push(`${key}${envName ? ` (env ${envName})` : ''}: ${issue.message}`);
    }
  }
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);

  const data = result.data;
  const publicUrl = resolvePublicUrl(data, problems);
  if (publicUrl === undefined) throw new ConfigError(problems);
  return {
    ...data,
    publicUrl,
    keysDir: path.resolve(rootDir, data.keysDir),
    dataDir: path.resolve(rootDir, data.dataDir),
    toolsDir: path.resolve(rootDir, data.toolsDir),
    rootDir,
    issuer: `${publicUrl}/oauth`,
    apiAudience: `${publicUrl}/v1`,
  };
}

/** `localhost` (and its subdomains) and the loopback ranges, 127.0.0.0/8 and ::1 (ipaddr.js): addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  return ipaddr.isValid(h) && ipaddr.process(h).range() === 'loopback';
}

/**
 * PUBLIC_URL as configured, or on a loopback host the address actually served, so that changing PORT
 * alone moves the issuer too. Anywhere but loopback it must be set, and be https: an OAuth issuer on
 * plain http outside this machine sends codes and tokens in clear, and a default guessed from HOST (which
 * is often 0.0.0.0 in a container) would name an address no client can reach.
 */
function resolvePublicUrl(data: { host: string; port: number; publicUrl?: string | undefined }, problems: string[]): string | undefined {
  if (data.publicUrl === undefined) {
    if (!isLoopbackHost(data.host)) {
      problems.push(`publicUrl (env PUBLIC_URL): must be set when HOST (${data.host}) is not a loopback address: the https address clients reach Slipway at, e.g. https://slipway.example.com`);
      return undefined;
    }
    if (data.port === 0) {
      problems.push('publicUrl (env PUBLIC_URL): must be set when PORT is 0 (a port chosen at start cannot be known to clients in advance)');
      return undefined;
    }
    const host = data.host.includes(':') && !data.host.startsWith('[') ? `[${data.host}]` : data.host;
    return `http://${host}:${data.port}`;
  }
  const url = new URL(data.publicUrl);
  if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) {
    problems.push(`publicUrl (env PUBLIC_URL): must be https unless it names a loopback host (got ${data.publicUrl}): OAuth codes and tokens must not cross a network in clear`);
    return undefined;
  }
  return data.publicUrl;
}
