import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb, type EmbeddedDatabase } from '../../src/db/embeddedFerretdb.ts';
import { sweepExpired } from '../../src/repositories/index.ts';
import { Api } from '../support/api.ts';
import { TEST_PASSWORD, makeClient } from '../support/factories.ts';
import { openLinkPage, pressAccept } from '../support/linkPages.ts';
import { createProject } from '../support/fixtures.ts';
import { obtainTokens, tokenRequest } from '../support/oauthDriver.ts';
import { waitFor } from '../support/processes.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';
import { race } from '../support/concurrency.ts';

/**
 * Every query the repositories make on the embedded database is answered from an index. A FerretDB of
 * this file's own logs each SQL statement it runs (`--log-level=debug`); a workload through the real
 * server (every /v1 resource created, listed, read, changed and deleted, API keys, the OAuth flows with
 * refresh and reuse detection, webhooks with deliveries, the sweeper running every second) fills the set of distinct statements, and each is then planned by SQLite
 * (`EXPLAIN QUERY PLAN`) against the same database file. A `SCAN` of a collection fails the test, except
 * the whole-collection reads listed in FULL_READS (a statement without a WHERE clause on those
 * collections): reads whose filter no index can answer, by design, none on a request's path.
 */
const FULL_READS: Record<string, string> = {
  oauth_clients: 'allRedirectUris: every client, for the CORS allow-list (at most every few seconds)',
  accounts: "the operator's list of every account (CLI)",
  // Migrations at start, once: each quota kind's backfill reads its resources until its marker is
  // written (src/repositories/index.ts, quotaSlots.backfill); users stored before people and
  // memberships were apart become both (`identity_id: {$exists: false}`, src/repositories/identityMigration.ts).
  projects: 'quota backfill at the first start with quotas (once, then a marker)',
  api_keys: 'quota backfill at the first start with quotas (once, then a marker)',
  webhooks: 'quota backfill at the first start with quotas (once, then a marker)',
  users: 'quota backfill, and users stored before people and memberships were apart (`identity_id: {$exists: false}`), at start',
  configurations: 'the data keys that seal secret values, at the first start with the data key registry (once; src/services/dataKeyCheck.ts)',
  data_key_registry: 'every data key id the database has seen, at start (a handful of rows)',
};
/** migrateOidcArtifacts at a database's first start (then marked done): `payload: {$exists: true}` on every OIDC collection (src/repositories/oidc/maintenance.ts). */
const FULL_READ_PREFIX = 'oidc_';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

let ferret: EmbeddedDatabase;
let dataDir: string;
let server: TestServer;
let api: Api;
let tokens: Tokens;
let owner: TestUser;
let receiver: Receiver;
/** Distinct SQL statements FerretDB ran (SELECT, UPDATE, DELETE), with how often. */
const statements = new Map<string, number>();
let pending = '';

function collect(chunk: string): void {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const at = line.indexOf('\t>>> ');
    if (at < 0) continue;
    // `>>> <sql>\t{"args": ...}`
    const rest = line.slice(at + 5);
    const end = rest.lastIndexOf('\t{');
    const sql = (end < 0 ? rest : rest.slice(0, end)).trim();
    if (/^(SELECT|UPDATE|DELETE)\b/.test(sql)) statements.set(sql, (statements.get(sql) ?? 0) + 1);
  }
}

beforeAll(async () => {
  const binary = await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION);
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-index-use-'));
  ferret = await startFerretdb({ binary, dataDir, logLevel: 'debug', onOutput: collect });
  server = await startTestServer({
    overrides: { mongodbUri: ferret.uri, sweepIntervalSeconds: 1, webhookPollIntervalMs: 100, webhookAllowLoopback: true },
  });
  api = await Api.connect(server.url);
  tokens = new Tokens(server);
  owner = await tokens.user('owner');
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await ferret?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** The request succeeded (any 2xx: the workload is about the queries, the routes' tests check the answers). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the bodies of every resource, read for ids only
async function ok(res: Promise<{ status: number; body: any }>, _status?: number): Promise<any> {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBeGreaterThanOrEqual(200);
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
}

/** Every /v1 resource, the OAuth flows and the background work, through the real server. */
async function workload(): Promise<void> {
  const admin = await tokens.accessToken(owner, 'read write admin');

  // projects
  const project = await createProject(api, admin);
  const other = await createProject(api, admin);
  await createProject(api, admin);
  await ok(api.get('/v1/projects', { token: admin }));
  await ok(api.get('/v1/projects?page=2&per_page=1', { token: admin }));
  await ok(api.get(`/v1/projects/${project.id}`, { token: admin }));
  await ok(api.patch(`/v1/projects/${project.id}`, { token: admin, body: { name: `renamed-${Date.now()}` } }));
  await ok(api.patch(`/v1/projects/${other.id}`, { token: admin, body: { status: 'paused' } }));

  // deployments
  const deployment = await ok(api.post(`/v1/projects/${project.id}/deployments`, { token: admin, body: { environment: 'production', branch: 'main' } }), 201);
  await ok(api.post(`/v1/projects/${project.id}/deployments`, { token: admin, headers: { 'idempotency-key': `index-use-${Date.now()}` }, body: { environment: 'staging', branch: 'dev' } }), 201);
  await ok(api.get(`/v1/projects/${project.id}/deployments`, { token: admin }));
  await ok(api.get(`/v1/projects/${project.id}/deployments?environment=production&status=queued&branch=main`, { token: admin }));
  await ok(api.get(`/v1/projects/${project.id}/deployments/${deployment.id}`, { token: admin }));
  for (const status of ['building', 'deploying', 'succeeded']) await ok(api.patch(`/v1/projects/${project.id}/deployments/${deployment.id}`, { token: admin, body: { status } }));

  // configurations
  const config = await ok(api.post(`/v1/projects/${project.id}/configurations`, { token: admin, body: { environment: 'production', key: 'LOG_LEVEL', value: 'debug' } }), 201);
  await ok(api.post(`/v1/projects/${project.id}/configurations`, { token: admin, body: { environment: 'production', key: 'TOKEN', value: 's3cret', secret: true } }), 201);
  await ok(api.get(`/v1/projects/${project.id}/configurations`, { token: admin }));
  await ok(api.get(`/v1/projects/${project.id}/configurations?environment=production`, { token: admin }));
  await ok(api.get(`/v1/projects/${project.id}/configurations/${config.id}`, { token: admin }));
  await ok(api.patch(`/v1/projects/${project.id}/configurations/${config.id}`, { token: admin, body: { value: 'info' } }));
  await ok(api.delete(`/v1/projects/${project.id}/configurations/${config.id}`, { token: admin }), 204);

  // deployment logs (after the configurations: appends read the project's secrets): append, read, follow
  const logs = `/v1/projects/${project.id}/deployments/${deployment.id}/logs`;
  await ok(api.post(logs, { token: admin, body: { lines: [{ text: 'one' }, { text: 'two', stream: 'stderr' }] } }), 202);
  await ok(api.post(logs, { token: admin, headers: { 'idempotency-key': `index-use-logs-${Date.now()}` }, body: { lines: [{ text: 'three' }] } }), 202);
  await ok(api.get(`${logs}?after=0&limit=2`, { token: admin }));
  await ok(api.get(`${logs}?after=2`, { token: admin }));
  // The deployment has finished: the stream sends what is stored, then ends.
  const follow = await fetch(`${server.url}${logs}`, { headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream' } });
  expect(await follow.text()).toContain('event: end');
  const feed = await fetch(`${server.url}/v1/projects/${project.id}/deployments`, { headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream', 'last-event-id': '0' } });
  const reader = feed.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (let text = ''; !text.includes('event: deployment'); ) text += (await reader.read()).value ?? '';
  await reader.cancel();

  // API keys, and a request made with one
  const key = await ok(api.post(`/v1/projects/${project.id}/api_keys`, { token: admin, body: { name: 'ci', scopes: ['write'] } }), 201);
  await ok(api.get(`/v1/projects/${project.id}/api_keys`, { token: admin }));
  await ok(api.get(`/v1/projects/${project.id}/api_keys?status=active`, { token: admin }));
  await ok(api.get(`/v1/projects/${project.id}/api_keys/${key.id}`, { token: admin }));
  await ok(api.get(`/v1/projects/${project.id}`, { token: key.key }));
  await ok(api.post(`/v1/projects/${project.id}/deployments`, { token: key.key, body: { environment: 'production', branch: 'main' } }), 201);
  const rotated = await ok(api.post(`/v1/projects/${project.id}/api_keys/${key.id}/rotate`, { token: admin, body: {} }));
  await ok(api.get(`/v1/projects/${project.id}`, { token: rotated.key }));
  await ok(api.delete(`/v1/projects/${project.id}/api_keys/${key.id}`, { token: admin }), 204);

  // users
  const dev = await ok(api.post('/v1/users', { token: admin, body: { email: `dev-${Date.now()}@example.com`, name: 'Dev', role: 'developer', password: TEST_PASSWORD } }), 201);
  await ok(api.get('/v1/users', { token: admin }));
  await ok(api.get(`/v1/users/${dev.id}`, { token: admin }));
  await ok(api.get('/v1/users/me', { token: admin }));
  await ok(api.patch(`/v1/users/${dev.id}`, { token: admin, body: { name: 'Developer' } }));
  await ok(api.get('/v1/accounts', { token: admin }));
  const invitation = await openLinkPage(dev.invitation_url);
  expect(invitation.status).toBe(200);
  expect((await pressAccept(invitation, TEST_PASSWORD)).status).toBe(303);
  const devUser: TestUser = { id: dev.id, email: dev.email, password: TEST_PASSWORD, role: 'developer', accountId: owner.accountId };
  const devToken = await tokens.accessToken(devUser, 'read write');
  await ok(api.post('/v1/users/me/password', { token: devToken, body: { current_password: TEST_PASSWORD, new_password: 'a long new password' } }), 204);
  await ok(api.delete(`/v1/users/${dev.id}`, { token: admin }), 204);

  // OAuth clients
  const client = await ok(api.post('/v1/oauth_clients', { token: admin, body: { client_name: 'Index use', redirect_uris: ['https://app.example.com/callback'] } }), 201);
  await ok(api.get('/v1/oauth_clients', { token: admin }));
  await ok(api.get(`/v1/oauth_clients/${client.client_id}`, { token: admin }));
  await ok(api.delete(`/v1/oauth_clients/${client.client_id}`, { token: admin }), 204);

  // webhooks and their deliveries (the dispatcher delivers to the receiver)
  const hook = await ok(api.post('/v1/webhooks', { token: admin, body: { url: receiver.url, events: ['project.created', 'deployment.created', 'deployment.status_changed'] } }), 201);
  await createProject(api, admin);
  await ok(api.post(`/v1/webhooks/${hook.id}/ping`, { token: admin }));
  await ok(api.get('/v1/webhooks', { token: admin }));
  await ok(api.get(`/v1/webhooks/${hook.id}`, { token: admin }));
  await ok(api.patch(`/v1/webhooks/${hook.id}`, { token: admin, body: { events: ['project.created', 'deployment.created'] } }));
  await waitFor('two deliveries', async () => receiver.received.length >= 2, 10_000).catch(() => undefined);
  const deliveries = await ok(api.get(`/v1/webhooks/${hook.id}/deliveries`, { token: admin }));
  if (deliveries.data?.[0]) await api.post(`/v1/webhooks/${hook.id}/deliveries/${deliveries.data[0].id}/redeliver`, { token: admin });
  await ok(api.post(`/v1/webhooks/${hook.id}/rotate_secret`, { token: admin }));

  // events
  await ok(api.get('/v1/events', { token: admin }));
  await ok(api.get(`/v1/events?type=project.created&project_id=${project.id}`, { token: admin }));

  // OAuth: public client with rotated refresh tokens and reuse detection; confidential client; client_credentials
  const publicClient = await tokens.publicClient(owner.accountId, true);
  let refresh = (await tokens.forUser(owner, 'read', { clientId: publicClient, withRefresh: true })).refresh_token!;
  const firstRefresh = refresh;
  for (let i = 0; i < 5; i += 1) refresh = (await tokenRequest(server.issuer, { clientId: publicClient }, { grant_type: 'refresh_token', refresh_token: refresh })).refresh_token!;
  await tokenRequest(server.issuer, { clientId: publicClient }, { grant_type: 'refresh_token', refresh_token: firstRefresh }).catch(() => undefined); // reuse: the grant is revoked
  const confidential = await makeClient(server, { account_id: owner.accountId, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['authorization_code', 'refresh_token', 'client_credentials'], first_party: true });
  const credentials = { clientId: confidential.client._id, clientSecret: confidential.clientSecret! };
  const issued = await obtainTokens({ issuer: server.issuer, ...credentials, redirectUri: REDIRECT_URI, scope: 'read write', email: owner.email, password: owner.password });
  for (let i = 0; i < 3; i += 1) await tokenRequest(server.issuer, credentials, { grant_type: 'refresh_token', refresh_token: issued.refresh_token! });
  await tokenRequest(server.issuer, credentials, { grant_type: 'client_credentials', scope: 'read' });
  await fetch(`${server.issuer}/token/revocation`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: issued.refresh_token!, token_type_hint: 'refresh_token' }),
  });
  await ok(api.post(`/v1/oauth_clients/${confidential.client._id}/rotate_secret`, { token: admin }));

  // many at once: concurrent reads and writes on one project
  await race(10, (i) =>
      i % 2 ? api.get(`/v1/projects/${project.id}/deployments`, { token: admin }) : api.post(`/v1/projects/${project.id}/deployments`, { token: admin, body: { environment: 'production', branch: `b${i}` } }),
    );

  // deletes that cascade
  await ok(api.delete(`/v1/webhooks/${hook.id}`, { token: admin }), 204);
  await ok(api.delete(`/v1/projects/${other.id}`, { token: admin }), 204);

  // the sweeper's statements (it also runs every second meanwhile)
  await sweepExpired(server.running.container.database.db, server.repos, server.clock.date());
}

describe('the embedded database answers every repository query from an index', () => {
  it('no SCAN of a collection in the plan of any statement the workload ran', async () => {
    await workload();
    await server.stop();

    const file = (await readdir(dataDir)).find((f) => f === `${server.config.mongodbDb}.sqlite`);
    expect(file, `no SQLite file for ${server.config.mongodbDb} in ${dataDir}`).toBeTruthy();
    const sqlite = new DatabaseSync(path.join(dataDir, file!), { readOnly: true });
    try {
      const tables = new Map(
        (sqlite.prepare('SELECT name, table_name FROM _ferretdb_collections').all() as { name: string; table_name: string }[]).map((r) => [r.table_name, r.name]),
      );
      const seen = new Map<string, number>();
      const scans: string[] = [];
      const fullReads = new Set<string>();
      let planned = 0;
      for (const sql of statements.keys()) {
        const table = /\bFROM "([^"]+)"|^UPDATE "([^"]+)"/.exec(sql);
        const tableName = table?.[1] ?? table?.[2];
        const collection = tableName && tables.get(tableName);
        if (!collection) continue; // FerretDB's own tables, or a database of another test
        seen.set(collection, (seen.get(collection) ?? 0) + 1);
        const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
        const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
        planned += 1;
        for (const { detail } of plan) {
          if (!/^SCAN /.test(detail) || !detail.includes(tableName)) continue;
          const fullRead = !/\bWHERE\b/.test(sql) && (collection in FULL_READS || collection.startsWith(FULL_READ_PREFIX));
          if (fullRead) fullReads.add(collection);
          else scans.push(`${collection}: ${detail}\n    ${sql.slice(0, 600)}`);
        }
      }
      console.log(`[index use] ${statements.size} distinct statements, ${planned} on Slipway's collections planned; per collection: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
      console.log(`[index use] whole-collection reads by design: ${[...fullReads].sort().join(', ') || 'none'}`);
      expect(scans, `statements that scan a collection:\n${scans.join('\n')}`).toEqual([]);
      // the workload reached the collections that grow with use
      for (const name of ['projects', 'deployments', 'configurations', 'api_keys', 'users', 'webhooks', 'webhook_deliveries', 'events', 'oidc_refresh_token', 'oidc_grant', 'oidc_session'])
        expect(seen.get(name) ?? 0, `no statement on ${name}`).toBeGreaterThan(0);
    } finally {
      sqlite.close();
    }
  }, 240_000);
});
