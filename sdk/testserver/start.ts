/**
 * A live Slipway for the SDK test suites (TypeScript, Python, Go): the real server on a free loopback
 * port against a real database, seeded through the real services, described by ONE JSON line on stdout.
 *
 *   node_modules/.bin/node sdk/testserver/start.ts [--rate-limit N] [--log-level LEVEL]
 *
 * - Database: MONGODB_URI when set (a database of its own in it, dropped at the end), otherwise the
 *   embedded FerretDB in a temporary directory.
 * - Seeded: an owner and a viewer (same account, with passwords), a public client with a loopback
 *   redirect URI (any port on 127.0.0.1, RFC 8252 §7.3) and authorization_code + refresh_token, a
 *   confidential client with client_credentials, a project, and an API key (read write) for it.
 * - `--rate-limit N`: /v1 requests per hour per credential (apiRateLimitPerHour), for 429 tests.
 * - `--rate-limit-reset-in S`: the current rate-limit window ends S seconds after the JSON line is
 *   printed, so a 429's Retry-After is at most S (see shiftClockToWindowEnd).
 * - Webhooks: URLs on loopback (plain http) are allowed and due deliveries are sent every 50 ms, so a
 *   test can receive deliveries on a local HTTP server (the server's defaults refuse loopback).
 * - Stops cleanly (server, database, temporary directory) when stdin closes, or on SIGTERM/SIGINT.
 * - Commands, one per line on stdin, for tests of an unavailable database (embedded FerretDB only):
 *   `database stop` and `database start` (same port and data); each is answered by one JSON line on
 *   stdout, `{"database":"stopped"}` / `{"database":"started"}` (or `{"error":"…"}`).
 *
 * Server logs go to stderr (level `warn` unless --log-level says otherwise); stdout carries only the
 * JSON line, whose fields are documented in sdk/testserver/README.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { systemPrincipal, type Principal } from '../../src/domain/principal.ts';
import { PROJECT_ROOT, loadConfig } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, freePort, startFerretdb, type EmbeddedDatabase } from '../../src/db/embeddedFerretdb.ts';
import { createLogger } from '../../src/logger.ts';
import { startServer, type RunningServer } from '../../src/server.ts';

/** The redirect URI registered for the public client; any port on 127.0.0.1 is accepted with it. */
export const LOOPBACK_REDIRECT_URI = 'http://127.0.0.1/callback';

export interface HarnessInfo {
  base_url: string;
  issuer: string;
  openapi_url: string;
  api_rate_limit_per_hour: number;
  owner: { id: string; email: string; password: string; account_id: string };
  viewer: { id: string; email: string; password: string; account_id: string };
  public_client: { client_id: string; redirect_uri: string; scope: string };
  confidential_client: { client_id: string; client_secret: string; scope: string };
  project: { id: string; name: string };
  api_key: { id: string; key: string; project_id: string; scopes: string[] };
}

const { values } = parseArgs({
  options: {
    'rate-limit': { type: 'string' },
    'rate-limit-reset-in': { type: 'string' },
    'log-level': { type: 'string', default: 'warn' },
  },
  strict: true,
});

/** How often the harness's server looks for due webhook deliveries (the server's default is 1000 ms). */
const WEBHOOK_POLL_INTERVAL_MS = 50;

/** The /v1 rate limiter counts in fixed windows of one hour aligned to the clock (src/http/rateLimit.ts). */
const RATE_LIMIT_WINDOW_MS = 3_600_000;

/**
 * The server counts /v1 requests in fixed hourly windows, so a real 429 says "Retry-After: up to
 * 3600". For a test that must see the retry succeed, this moves the clock of THIS process (the server
 * and nothing else) forward so that the current window ends `seconds` from now: `Date.now()` (what the
 * limiter, oidc-provider and jose read) gains a constant offset below one hour. Tokens are issued and
 * verified by the same clock, so they stay valid; only timestamps the server writes with `new Date()`
 * keep the real time.
 */
function shiftClockToWindowEnd(seconds: number): void {
  const realNow = Date.now.bind(Date);
  const now = realNow();
  const untilBoundary = RATE_LIMIT_WINDOW_MS - (now % RATE_LIMIT_WINDOW_MS);
  const offset = (((untilBoundary - seconds * 1000) % RATE_LIMIT_WINDOW_MS) + RATE_LIMIT_WINDOW_MS) % RATE_LIMIT_WINDOW_MS;
  Date.now = () => realNow() + offset;
}

const cleanups: (() => Promise<unknown>)[] = [];

/** The embedded database, while it runs, and how to start it again (for `database stop|start`). */
let embedded: { current: EmbeddedDatabase | undefined; start: () => Promise<EmbeddedDatabase> } | undefined;

async function command(line: string): Promise<Record<string, string>> {
  if (!embedded) return { error: 'database commands need the embedded database (MONGODB_URI is set)' };
  if (line === 'database stop') {
    await embedded.current?.stop();
    embedded.current = undefined;
    return { database: 'stopped' };
  }
  if (line === 'database start') {
    embedded.current ??= await embedded.start();
    return { database: 'started' };
  }
  return { error: `unknown command: ${line}` };
}
let stopping: Promise<void> | undefined;

async function stop(code: number): Promise<never> {
  stopping ??= (async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        process.stderr.write(`[testserver] cleanup failed: ${(err as Error).message}\n`);
      }
    }
  })();
  await stopping;
  process.exit(code);
}

async function main(): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'slipway-sdk-harness-'));
  cleanups.push(() => rm(tmp, { recursive: true, force: true }));

  let mongodbUri = process.env.MONGODB_URI;
  const dbName = `sdk_${randomBytes(6).toString('hex')}`;
  if (mongodbUri) {
    const uri = mongodbUri;
    cleanups.push(async () => {
      const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
      try {
        await client.db(dbName).dropDatabase();
      } finally {
        await client.close();
      }
    });
  } else {
    const binary = await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION);
    const db: EmbeddedDatabase = await startFerretdb({ binary, dataDir: path.join(tmp, 'db') });
    const state = { current: db as EmbeddedDatabase | undefined, start: () => startFerretdb({ binary, dataDir: path.join(tmp, 'db'), port: db.port }) };
    embedded = state;
    cleanups.push(async () => state.current?.stop());
    mongodbUri = db.uri;
  }

  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const rateLimit = values['rate-limit'];
  const config = loadConfig({
    env: {},
    overrides: {
      port,
      host: '127.0.0.1',
      publicUrl,
      mongodbUri,
      mongodbDb: dbName,
      keysDir: path.join(tmp, 'keys'),
      dataDir: path.join(tmp, 'data'),
      logLevel: 'info',
      shutdownGraceMs: 2000,
      // Webhook tests deliver to a receiver on loopback, and should not wait a second for each delivery.
      webhookAllowLoopback: true,
      webhookPollIntervalMs: WEBHOOK_POLL_INTERVAL_MS,
      ...(rateLimit ? { apiRateLimitPerHour: Number(rateLimit) } : {}),
      // A suite signs the same users in through the real pages many times a minute, and provokes refused
      // refreshes on purpose: login throttling and the token endpoint's failure budgets are the server
      // suite's subject (test/oauth/loginThrottling, loginSources, tokenBudgets), not the libraries'.
      loginPerEmailAndSourcePerMinute: 10_000,
      loginPerSourcePerMinute: 10_000,
      loginPerEmailPerMinute: 100_000,
      loginPerDevicePerMinute: 10_000,
      tokenFailuresPerSourcePerMinute: 1_000_000,
      tokenFailuresPerClientAndSourcePerMinute: 1_000_000,
    },
  });
  const logger = createLogger({ level: values['log-level'] ?? 'warn', destination: process.stderr, pretty: false });
  const running: RunningServer = await startServer(config, logger);
  cleanups.push(() => running.close());
  const { services } = running.container;

  const suffix = randomBytes(4).toString('hex');
  const ownerPassword = `owner-${randomBytes(12).toString('base64url')}`;
  const viewerPassword = `viewer-${randomBytes(12).toString('base64url')}`;
  const owner = await services.users.createByOperator({ email: `owner-${suffix}@example.com`, name: 'SDK Owner', role: 'owner', password: ownerPassword });
  const viewer = await services.users.createByOperator({
    email: `viewer-${suffix}@example.com`,
    name: 'SDK Viewer',
    role: 'viewer',
    password: viewerPassword,
    account_id: owner.account_id,
  });
  const operator = systemPrincipal(owner.account_id);
  const publicClient = await services.oauthClients.registerAsOperator(operator, {
    client_name: 'SDK Test App',
    redirect_uris: [LOOPBACK_REDIRECT_URI],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
  });
  const confidential = await services.oauthClients.registerAsOperator(operator, {
    client_name: 'SDK Test Service',
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['client_credentials'],
  });
  const principal: Principal = {
    kind: 'user',
    id: owner._id,
    accountId: owner.account_id,
    scopes: new Set(['read', 'write', 'admin']),
    role: 'owner',
    credential: 'access_token',
  };
  const project = await services.projects.create(principal, { name: `sdk-${suffix}` });
  const issued = await services.apiKeys.create(principal, project._id, { name: 'SDK tests', scopes: ['read', 'write'] });

  const info: HarnessInfo = {
    base_url: publicUrl,
    issuer: config.issuer,
    openapi_url: `${publicUrl}/openapi.json`,
    api_rate_limit_per_hour: config.apiRateLimitPerHour,
    owner: { id: owner._id, email: owner.email, password: ownerPassword, account_id: owner.account_id },
    viewer: { id: viewer._id, email: viewer.email, password: viewerPassword, account_id: viewer.account_id },
    public_client: { client_id: publicClient.client._id, redirect_uri: LOOPBACK_REDIRECT_URI, scope: publicClient.client.scope },
    confidential_client: { client_id: confidential.client._id, client_secret: confidential.clientSecret!, scope: confidential.client.scope },
    project: { id: project._id, name: project.name },
    api_key: { id: issued.apiKey._id, key: issued.key, project_id: project._id, scopes: issued.apiKey.scopes },
  };
  const resetIn = values['rate-limit-reset-in'];
  if (resetIn) shiftClockToWindowEnd(Number(resetIn));
  process.stdout.write(`${JSON.stringify(info)}\n`);
}

process.once('SIGTERM', () => void stop(0));
process.once('SIGINT', () => void stop(0));
process.stdin.on('end', () => void stop(0));
process.stdin.on('close', () => void stop(0));
let commands = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (raw) => {
  const line = raw.trim();
  if (!line) return;
  // One at a time, answered in order.
  commands = commands.then(async () => {
    const answer = await command(line).catch((err: unknown) => ({ error: (err as Error).message }));
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
});

main().catch((err: unknown) => {
  process.stderr.write(`[testserver] could not start: ${(err as Error).stack ?? String(err)}\n`);
  void stop(1);
});
