import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * One typed configuration, validated once at start. Sources, later wins:
 * `config/default.json`, `config/<NODE_ENV>.json` (optional), `config/local.json` (optional, git-ignored
 * by convention), then environment variables. Every problem is reported at once.
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

export const ConfigSchema = z
  .object({
    host: z.string().min(1),
    port: z.coerce.number().int().min(0).max(65535),
    /**
     * The address users and clients reach Slipway at: the OAuth issuer, discovery, redirects and links
     * are built from it, never from a request's Host. Optional on a loopback host (it defaults to
     * `http://HOST:PORT`, the address actually served); required, and https, anywhere else.
     */
    publicUrl: Url.optional(),
    mongodbUri: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://').optional(),
    mongodbDb: z.string().regex(/^[A-Za-z0-9_-]{1,63}$/, 'letters, digits, _ and - only (at most 63)'),
    logLevel: LogLevel,
    keysDir: z.string().min(1),
    /**
     * Data key ids (`dk_…`) that keys/ has lost and that the operator accepts as gone: values they seal
     * stay unreadable (409 secret_unreadable) until set again. Without it a start refuses when the
     * database holds values sealed by a key keys/ lacks (src/services/dataKeyCheck.ts).
     */
    acceptLostDataKeys: z.union([z.array(z.string()), z.string().transform((v) => v.split(/[\s,]+/).filter(Boolean))]).pipe(z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be data key ids (dk_…)'))),
    dataDir: z.string().min(1),
    /** Where the embedded database's binary is built and cached. */
    toolsDir: z.string().min(1),
    /**
     * Shorthand for one proxy in front (`proxyHops: 1`) when neither `proxyHops` nor `trustedProxies` is
     * set: the client address is then the right-most `X-Forwarded-For` entry, the one that proxy wrote.
     */
    trustProxy: z.coerce.boolean(),
    /**
     * How many proxies stand in front of every request (0: none). The client address is the N-th
     * `X-Forwarded-For` entry from the right: the entries further left were written by the client.
     */
    proxyHops: z.coerce.number().int().min(0).max(10),
    /**
     * Addresses (CIDRs) of the proxies in front. When the peer is one of them, the client address is the
     * right-most `X-Forwarded-For` entry that is not; entries left of it are the client's own writing.
     */
    trustedProxies: z
      .union([z.array(z.string()), z.string().transform((v) => v.split(/[\s,]+/).filter(Boolean))])
      .pipe(z.array(z.string().refine(isCidrOrAddress, 'must be an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)'))),
    shutdownGraceMs: z.coerce.number().int().min(0).max(120_000),
    sweepIntervalSeconds: z.coerce.number().int().min(1).max(3600),
    /**
     * Token endpoint requests per minute per client, shared by every instance (docs/product.md §6: 600). Raise it
     * only to measure throughput (`npm run bench` does); production keeps the contract's value.
     */
    tokenRateLimitPerMinute: z.coerce.number().int().min(1).max(10_000_000),
    /** /v1 requests per hour per credential, shared by every instance (docs/product.md §6: 5,000). */
    apiRateLimitPerHour: z.coerce.number().int().min(1).max(10_000_000),
    /**
     * How often each instance reloads the revoked-grant list (incrementally). A revoked grant's access
     * tokens are refused at most this many seconds later; docs/product.md §2 allows 60.
     */
    revocationRefreshSeconds: z.coerce.number().min(0.05).max(30),
    /**
     * How long an instance trusts a loaded user, OAuth client or API key (role, account, existence,
     * status) before reading it again: a removed user or client, a changed role, or an API key revoked
     * or rotated on another instance, takes effect within this bound.
     */
    principalCacheSeconds: z.coerce.number().min(0).max(30),

    // Per-account quotas (one tenant cannot crowd out the others). Counts apply to what an account's
    // admins and apps create; the operator (admin CLI) is not held to them, but what it creates counts.
    /** Projects per account. */
    quotaProjects: z.coerce.number().int().min(1).max(1_000_000),
    /** OAuth clients per account. */
    quotaOauthClients: z.coerce.number().int().min(1).max(1_000_000),
    /** Active (not revoked) API keys per account, over all its projects. */
    quotaApiKeys: z.coerce.number().int().min(1).max(1_000_000),
    /** Webhook endpoints per account. */
    quotaWebhooks: z.coerce.number().int().min(1).max(1_000_000),
    /** Users per account. */
    quotaUsers: z.coerce.number().int().min(1).max(1_000_000),
    /**
     * /v1 requests per hour per account, all its credentials together (keys, tokens, sessions), counted
     * after each credential's own limit and shared by every instance.
     */
    accountRequestsPerHour: z.coerce.number().int().min(1).max(100_000_000),

    // Login throttling (authorization server hardening): sign-in attempts per minute, shared by every
    // instance. Keyed so that failures from one source never lock the user out of another source.
    /** Attempts per minute for one e-mail address from one source address (a targeted guess). */
    loginPerEmailAndSourcePerMinute: z.coerce.number().int().min(1).max(10_000),
    /** Attempts per minute from one source address, whatever the e-mail (password spraying). */
    loginPerSourcePerMinute: z.coerce.number().int().min(1).max(10_000),
    /** Attempts per minute for one e-mail address from all sources together: a ceiling for distributed guessing. */
    loginPerEmailPerMinute: z.coerce.number().int().min(1).max(100_000),
    /**
     * Attempts per minute from a browser that signed this user in before (its device cookie): such
     * attempts are counted here instead of per e-mail and per source, so others cannot lock it out.
     */
    loginPerDevicePerMinute: z.coerce.number().int().min(1).max(10_000),
    // Token endpoint budgets: only failed requests are counted per source, so junk sent by one source
    // never spends what a client needs elsewhere; the per-client total counts issued tokens only.
    /** Failed token requests (bad client authentication, invalid grant, …) per minute from one source. */
    tokenFailuresPerSourcePerMinute: z.coerce.number().int().min(1).max(1_000_000),
    /** Failed token requests per minute naming one client from one source. */
    tokenFailuresPerClientAndSourcePerMinute: z.coerce.number().int().min(1).max(1_000_000),
    // Webhooks (docs/product.md §7)
    /** Lets webhook URLs point at loopback (and use http there): development and tests only. */
    webhookAllowLoopback: z.coerce.boolean(),
    /** How often each instance looks for due deliveries (the pending set is kept small, so this is cheap). */
    webhookPollIntervalMs: z.coerce.number().int().min(10).max(60_000),
    /** First retry delay; each failed attempt doubles it (with jitter), up to an hour. */
    webhookRetryBaseMs: z.coerce.number().int().min(1).max(3_600_000),
    /** How long a delivery keeps being retried; after that long of failures the endpoint is disabled. */
    webhookRetryWindowSeconds: z.coerce.number().min(0.1).max(7 * 86_400),
    /** One delivery attempt's limit: connecting, sending and reading the answer. */
    webhookTimeoutMs: z.coerce.number().int().min(50).max(30_000),
    /** Attempts in flight to one endpoint at once, across all instances, so one slow endpoint cannot take every worker. */
    webhookEndpointConcurrency: z.coerce.number().int().min(1).max(64),
    /** Failed attempts in a row after which an endpoint's deliveries wait for one probe at a time, with exponential backoff. */
    webhookCircuitFailures: z.coerce.number().int().min(1).max(1000),
    // Crash-safe writes and bounded outages.
    /**
     * How long a request waits for a concurrent request with the same `Idempotency-Key` to finish before
     * answering 409 `conflict` with Retry-After. Kept under the 2 s an outage may take to answer.
     */
    idempotencyWaitMs: z.coerce.number().int().min(0).max(10_000),
    /**
     * After how long a request still pending under an `Idempotency-Key` (its instance or the database
     * died mid-request) is run again by a retry, under the resource id it reserved.
     */
    idempotencyTakeoverSeconds: z.coerce.number().min(0.1).max(3600),
    /** How long the driver looks for a reachable MongoDB before a request answers 503. */
    mongodbTimeoutMs: z.coerce.number().int().min(100).max(30_000),
    /**
     * How long connecting to MongoDB, and the driver's periodic check of it, may take before the database
     * counts as down: long enough for a slow but live server (a busy database is not a dead one).
     */
    mongodbConnectTimeoutMs: z.coerce.number().int().min(500).max(120_000),
    // --- Browser apps and operators: CORS and metrics ---
    /**
     * Origins (scheme://host[:port]) allowed to call /v1 and the OAuth endpoints from a browser, in
     * addition to the origins of every registered client's redirect URIs.
     */
    corsOrigins: z
      .union([z.array(z.string()), z.string().transform((v) => v.split(/[\s,]+/).filter(Boolean))])
      .pipe(z.array(z.url({ protocol: /^https?$/, error: 'must be an http(s) origin' }).refine((v) => new URL(v).origin === v.replace(/\/+$/, ''), 'must be an origin: scheme://host[:port], no path'))),
    /** How long the origins of registered clients are trusted before they are read again (other instances' changes). */
    corsRefreshSeconds: z.coerce.number().min(0).max(3600),
    /**
     * `host:port` of a separate listener that serves only /metrics (for a private network or a local
     * agent); '' to serve /metrics on the main port instead, behind `metricsToken`.
     */
    metricsListen: z.union([z.literal(''), z.string().regex(/^[^\s]+:\d{1,5}$/, 'must be host:port, or empty')]),
    /** Bearer token /metrics requires when set (at least 32 characters); '' for none. */
    metricsToken: z.union([z.literal(''), z.string().min(32, 'must be at least 32 characters, or empty')]),
    // HTTP edge (server timeouts)
    /** Time a client has to send a request's complete headers; a slower connection gets 408 and is closed. */
    httpHeadersTimeoutMs: z.coerce.number().int().min(100).max(300_000),
    /** Time a client has to send a whole request (headers and body); at least the headers timeout. */
    httpRequestTimeoutMs: z.coerce.number().int().min(100).max(600_000),

    // --- Performance ---
    /**
     * SQLite `synchronous` of the embedded database (no MONGODB_URI): `normal` (WAL stays consistent, the
     * last transactions may be lost on power loss or an OS crash) or `full` (every commit reaches the disk).
     */
    embeddedSqliteSynchronous: z.enum(['normal', 'full']),


    // --- Authorization server ---
    /**
     * Reuse grace window of rotated refresh tokens: for this many seconds after a refresh token was
     * used, presenting it again refreshes once more (a new refresh token of the same grant) instead of
     * being treated as reuse, which revokes the grant. For apps whose concurrent requests refresh at once.
     * 0 (default): every second use is reuse. At most 60.
     */
    oauthRefreshReuseGraceSeconds: z.coerce.number().int().min(0).max(60),
    /**
     * DPoP server nonces (RFC 9449 §8–9): when true, every DPoP proof (token endpoint and /v1) must carry
     * a nonce this server issued (`DPoP-Nonce`); the first call without one gets `use_dpop_nonce`. When
     * false (default), nonces are offered and checked when present; a proof is then bound in time by
     * its `iat` and its single-use `jti`.
     */
    dpopNonceRequired: z.coerce.boolean(),
  })
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

const ENV_MAP: Record<string, keyof z.infer<typeof ConfigSchema>> = {
  HOST: 'host',
  PORT: 'port',
  PUBLIC_URL: 'publicUrl',
  MONGODB_URI: 'mongodbUri',
  MONGODB_DB: 'mongodbDb',
  LOG_LEVEL: 'logLevel',
  KEYS_DIR: 'keysDir',
  ACCEPT_LOST_DATA_KEYS: 'acceptLostDataKeys',
  DATA_DIR: 'dataDir',
  TOOLS_DIR: 'toolsDir',
  TRUST_PROXY: 'trustProxy',
  PROXY_HOPS: 'proxyHops',
  TRUSTED_PROXIES: 'trustedProxies',
  SHUTDOWN_GRACE_MS: 'shutdownGraceMs',
  SWEEP_INTERVAL_SECONDS: 'sweepIntervalSeconds',
  TOKEN_RATE_LIMIT_PER_MINUTE: 'tokenRateLimitPerMinute',
  API_RATE_LIMIT_PER_HOUR: 'apiRateLimitPerHour',
  REVOCATION_REFRESH_SECONDS: 'revocationRefreshSeconds',
  PRINCIPAL_CACHE_SECONDS: 'principalCacheSeconds',
  // Per-account quotas
  QUOTA_PROJECTS: 'quotaProjects',
  QUOTA_OAUTH_CLIENTS: 'quotaOauthClients',
  QUOTA_API_KEYS: 'quotaApiKeys',
  QUOTA_WEBHOOKS: 'quotaWebhooks',
  QUOTA_USERS: 'quotaUsers',
  ACCOUNT_REQUESTS_PER_HOUR: 'accountRequestsPerHour',
  // Login throttling
  LOGIN_PER_EMAIL_AND_SOURCE_PER_MINUTE: 'loginPerEmailAndSourcePerMinute',
  LOGIN_PER_SOURCE_PER_MINUTE: 'loginPerSourcePerMinute',
  LOGIN_PER_EMAIL_PER_MINUTE: 'loginPerEmailPerMinute',
  LOGIN_PER_DEVICE_PER_MINUTE: 'loginPerDevicePerMinute',
  TOKEN_FAILURES_PER_SOURCE_PER_MINUTE: 'tokenFailuresPerSourcePerMinute',
  TOKEN_FAILURES_PER_CLIENT_AND_SOURCE_PER_MINUTE: 'tokenFailuresPerClientAndSourcePerMinute',
  // Webhooks
  WEBHOOK_ALLOW_LOOPBACK: 'webhookAllowLoopback',
  WEBHOOK_POLL_INTERVAL_MS: 'webhookPollIntervalMs',
  WEBHOOK_RETRY_BASE_MS: 'webhookRetryBaseMs',
  WEBHOOK_RETRY_WINDOW_SECONDS: 'webhookRetryWindowSeconds',
  WEBHOOK_TIMEOUT_MS: 'webhookTimeoutMs',
  WEBHOOK_ENDPOINT_CONCURRENCY: 'webhookEndpointConcurrency',
  WEBHOOK_CIRCUIT_FAILURES: 'webhookCircuitFailures',
  // Crash-safe writes and bounded outages.
  IDEMPOTENCY_WAIT_MS: 'idempotencyWaitMs',
  IDEMPOTENCY_TAKEOVER_SECONDS: 'idempotencyTakeoverSeconds',
  MONGODB_TIMEOUT_MS: 'mongodbTimeoutMs',
  MONGODB_CONNECT_TIMEOUT_MS: 'mongodbConnectTimeoutMs',
  // Browser apps and operators: CORS and metrics
  CORS_ORIGINS: 'corsOrigins',
  CORS_REFRESH_SECONDS: 'corsRefreshSeconds',
  METRICS_LISTEN: 'metricsListen',
  METRICS_TOKEN: 'metricsToken',
  // HTTP edge (server timeouts)
  HTTP_HEADERS_TIMEOUT_MS: 'httpHeadersTimeoutMs',
  HTTP_REQUEST_TIMEOUT_MS: 'httpRequestTimeoutMs',
  // Performance
  EMBEDDED_SQLITE_SYNCHRONOUS: 'embeddedSqliteSynchronous',
  // Authorization server
  OAUTH_REFRESH_REUSE_GRACE_SECONDS: 'oauthRefreshReuseGraceSeconds',
  DPOP_NONCE_REQUIRED: 'dpopNonceRequired',
};

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
    ...readJson(path.join(configDir, 'default.json'), problems),
    ...(env.NODE_ENV ? readJson(path.join(configDir, `${env.NODE_ENV}.json`), problems) : {}),
    ...readJson(path.join(configDir, 'local.json'), problems),
  };
  for (const [name, key] of Object.entries(ENV_MAP)) {
    const value = env[name];
    if (value !== undefined && value !== '') merged[key] = key === 'trustProxy' || key === 'webhookAllowLoopback' || key === 'dpopNonceRequired' ? value === 'true' || value === '1' : value;
  }
  Object.assign(merged, options.overrides ?? {});

  const result = ConfigSchema.safeParse(merged);
  if (!result.success) {
    const reverse = Object.fromEntries(Object.entries(ENV_MAP).map(([k, v]) => [v, k]));
    for (const issue of result.error.issues) {
      const key = issue.path.join('.');
      const envName = reverse[key];
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
