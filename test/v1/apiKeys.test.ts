import { beforeAll, describe, expect, it } from 'vitest';
import { apiKeyChecksum } from '../../src/lib/apiKeyFormat.ts';
import { Api, type ApiResponse } from '../support/api.ts';
import { dumpDatabase } from '../support/database.ts';
import { createProject, expectRefused, useApiServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/**
 * API keys over HTTP (docs/product.md §2, §3, §5): managing them, authenticating with them, confinement to their
 * project, rotation with a grace period, revocation and expiry, and the secret appearing only in the
 * create and rotate responses.
 */

/** A second instance on the same database trusts a looked-up key this long (the longest allowed). */
const OTHER_INSTANCE_CACHE_SECONDS = 30;

const env = useApiServer();
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, admin: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken: admin } = env));
/** Every plaintext key any response showed: none may be stored or logged anywhere. */
const issued: string[] = [];

let n = 0;
const newProject = async (token = admin): Promise<string> => (await createProject(api, token)).id;

async function newKey(projectId: string, scopes: string[], extra: Record<string, unknown> = {}): Promise<{ id: string; key: string; body: Record<string, unknown> }> {
  const res = await api.post(`/v1/projects/${projectId}/api_keys`, { token: admin, body: { name: `key ${++n}`, scopes, ...extra } });
  expect(res.status).toBe(201);
  issued.push(res.body.key);
  return { id: res.body.id, key: res.body.key, body: res.body };
}


function expectInvalidToken(res: ApiResponse): void {
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('invalid_token');
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="slipway", error="invalid_token"/);
}

describe('managing keys', () => {
  it('creates a key: 201, Location, the secret once in `key`; list and get never show it', async () => {
    const project = await newProject();
    const res = await api.post(`/v1/projects/${project}/api_keys`, { token: admin, body: { name: '  CI deploy  ', scopes: ['write'] } });
    expect(res.status).toBe(201);
    issued.push(res.body.key);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-z]{26}$/),
      name: 'CI deploy',
      project_id: project,
      scopes: ['write'],
      prefix: res.body.key.slice(0, 8),
      last_four: res.body.key.slice(-4),
      status: 'active',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      created_by: { type: 'user', id: owner.id },
      last_used_at: null,
      expires_at: null,
      rotated_at: null,
      key: expect.stringMatching(/^slw_[0-9A-Za-z]{38}$/),
    });
    const key: string = res.body.key;
    expect(key.slice(-6)).toBe(apiKeyChecksum(key.slice(4, 36)));
    expect(res.headers.get('location')).toBe(`${server.url}/v1/projects/${project}/api_keys/${res.body.id}`);

    const { key: _secret, ...withoutSecret } = res.body;
    const got = await api.get(`/v1/projects/${project}/api_keys/${res.body.id}`, { token: admin });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(withoutSecret);
    expect(got.text).not.toContain(key);
    const list = await api.get(`/v1/projects/${project}/api_keys`, { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([withoutSecret]);
    expect(list.text).not.toContain(key);
  });

  it('an Idempotency-Key replay creates nothing new and does not show the secret again', async () => {
    const project = await newProject();
    const headers = { 'idempotency-key': `create-${Date.now()}` };
    const first = await api.post(`/v1/projects/${project}/api_keys`, { token: admin, body: { name: 'once', scopes: ['read'] }, headers });
    expect(first.status).toBe(201);
    issued.push(first.body.key);
    const again = await api.post(`/v1/projects/${project}/api_keys`, { token: admin, body: { name: 'once', scopes: ['read'] }, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ ...first.body, key: null });
    expect((await api.get(`/v1/projects/${project}/api_keys`, { token: admin })).body.pagination.total).toBe(1);
    // The replayed response is stored without the secret; the key itself works.
    expect((await api.get(`/v1/projects/${project}`, { token: first.body.key })).status).toBe(200);
  });

  it('validates: scopes from read/write/admin (at least one), a future expires_at, a grace period of 0–604800 s', async () => {
    const project = await newProject();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', scopes: [] }, 'scopes'],
      [{ name: 'x', scopes: ['root'] }, 'scopes.0'],
      [{ name: '', scopes: ['read'] }, 'name'],
      [{ name: 'x', scopes: ['read'], expires_at: new Date(Date.now() - 60_000).toISOString() }, 'expires_at'],
      [{ name: 'x', scopes: ['read'], expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: 'x', scopes: ['read'], project_id: project }, 'project_id'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post(`/v1/projects/${project}/api_keys`, { token: admin, body });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const { id } = await newKey(project, ['read']);
    for (const grace of [-1, 604_801, 1.5, '60']) {
      const res = await api.post(`/v1/projects/${project}/api_keys/${id}/rotate`, { token: admin, body: { grace_period_seconds: grace } });
      expectRefused(res, 422, 'validation_failed');
    }
    expect((await api.get(`/v1/projects/${project}/api_keys`, { token: admin })).body.pagination.total).toBe(1);
  });

  it("another account's project and key are 404; an archived project takes no new keys (409)", async () => {
    const project = await newProject();
    const { id } = await newKey(project, ['read']);
    const stranger = await tokens.user('owner');
    const theirs = await tokens.accessToken(stranger, 'admin');
    expectRefused(await api.get(`/v1/projects/${project}/api_keys`, { token: theirs }), 404, 'not_found');
    expectRefused(await api.get(`/v1/projects/${project}/api_keys/${id}`, { token: theirs }), 404, 'not_found');
    expectRefused(await api.delete(`/v1/projects/${project}/api_keys/${id}`, { token: theirs }), 404, 'not_found');
    expectRefused(await api.post(`/v1/projects/${project}/api_keys/${id}/rotate`, { token: theirs, body: {} }), 404, 'not_found');
    // A key id under the wrong project of the right account is just as unknown.
    const other = await newProject();
    expectRefused(await api.get(`/v1/projects/${other}/api_keys/${id}`, { token: admin }), 404, 'not_found');

    expect((await api.patch(`/v1/projects/${project}`, { token: admin, body: { status: 'archived' } })).status).toBe(200);
    expectRefused(await api.post(`/v1/projects/${project}/api_keys`, { token: admin, body: { name: 'late', scopes: ['read'] } }), 409, 'project_not_active');
    expectRefused(await api.post(`/v1/projects/${project}/api_keys/${id}/rotate`, { token: admin, body: {} }), 409, 'project_not_active');
    // Removing access is never blocked.
    expect((await api.delete(`/v1/projects/${project}/api_keys/${id}`, { token: admin })).body.status).toBe('revoked');
  });
});

describe('a key acts as its project alone, with its scopes', () => {
  let projectA: string;
  let projectB: string;
  let writeKey: { id: string; key: string };
  let readKey: { id: string; key: string };

  beforeAll(async () => {
    projectA = await newProject();
    projectB = await newProject();
    writeKey = await newKey(projectA, ['write']);
    readKey = await newKey(projectA, ['read']);
  });

  it('reads and writes its own project', async () => {
    const key = writeKey.key;
    const list = await api.get('/v1/projects', { token: key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([projectA]);
    expect(list.body.pagination.total).toBe(1);
    expect((await api.get(`/v1/projects/${projectA}`, { token: key })).status).toBe(200);
    expect((await api.patch(`/v1/projects/${projectA}`, { token: key, body: { deploy_target: 'fly' } })).body.deploy_target).toBe('fly');

    const deployment = await api.post(`/v1/projects/${projectA}/deployments`, { token: key, body: { environment: 'production', branch: 'main' } });
    expect(deployment.status).toBe(201);
    expect(deployment.body.created_by).toEqual({ type: 'api_key', id: writeKey.id });
    const moved = await api.patch(`/v1/projects/${projectA}/deployments/${deployment.body.id}`, { token: key, body: { status: 'building' } });
    expect(moved.body.status).toBe('building');
    expect((await api.get(`/v1/projects/${projectA}/deployments`, { token: key })).body.pagination.total).toBe(1);

    const config = await api.post(`/v1/projects/${projectA}/configurations`, { token: key, body: { environment: 'production', key: 'LOG_LEVEL', value: 'debug' } });
    expect(config.status).toBe(201);
    expect((await api.patch(`/v1/projects/${projectA}/configurations/${config.body.id}`, { token: key, body: { value: 'info' } })).body.value).toBe('info');
    expect((await api.get(`/v1/projects/${projectA}/configurations`, { token: key })).body.data).toHaveLength(1);
    expect((await api.delete(`/v1/projects/${projectA}/configurations/${config.body.id}`, { token: key })).status).toBe(204);

    // The audit log names the key as the actor.
    const events = await api.get(`/v1/events?project_id=${projectA}&type=deployment.created`, { token: admin });
    expect(events.body.data[0].actor).toEqual({ type: 'api_key', id: writeKey.id });
  });

  it('every route on another project of the same account is 404; users, keys, clients and events are 403 forbidden', async () => {
    // An admin key: every request passes the scope check, so only confinement can refuse it.
    const adminKey = await newKey(projectA, ['admin']);
    const key = adminKey.key;
    const deployment = await api.post(`/v1/projects/${projectB}/deployments`, { token: admin, body: { environment: 'production', branch: 'main' } });
    const config = await api.post(`/v1/projects/${projectB}/configurations`, { token: admin, body: { environment: 'production', key: 'A', value: 'b' } });
    const keyOfB = await newKey(projectB, ['read']);
    const notFound: [string, string, unknown?][] = [
      ['GET', `/v1/projects/${projectB}`],
      ['PATCH', `/v1/projects/${projectB}`, { name: 'taken over' }],
      ['DELETE', `/v1/projects/${projectB}`],
      ['GET', `/v1/projects/${projectB}/deployments`],
      ['POST', `/v1/projects/${projectB}/deployments`, { environment: 'production', branch: 'main' }],
      ['GET', `/v1/projects/${projectB}/deployments/${deployment.body.id}`],
      ['PATCH', `/v1/projects/${projectB}/deployments/${deployment.body.id}`, { status: 'canceled' }],
      ['GET', `/v1/projects/${projectB}/configurations`],
      ['POST', `/v1/projects/${projectB}/configurations`, { environment: 'production', key: 'B', value: 'c' }],
      ['GET', `/v1/projects/${projectB}/configurations/${config.body.id}`],
      ['PATCH', `/v1/projects/${projectB}/configurations/${config.body.id}`, { value: 'x' }],
      ['DELETE', `/v1/projects/${projectB}/configurations/${config.body.id}`],
    ];
    for (const [method, path, body] of notFound) expectRefused(await api.request(method, path, { token: key, body }), 404, 'not_found');

    const forbidden: [string, string, unknown?][] = [
      ['POST', '/v1/projects', { name: 'second project' }],
      ['GET', `/v1/projects/${projectA}/api_keys`],
      ['POST', `/v1/projects/${projectA}/api_keys`, { name: 'escalate', scopes: ['admin'] }],
      ['GET', `/v1/projects/${projectA}/api_keys/${writeKey.id}`],
      ['POST', `/v1/projects/${projectA}/api_keys/${writeKey.id}/rotate`, {}],
      ['DELETE', `/v1/projects/${projectB}/api_keys/${keyOfB.id}`],
      ['GET', '/v1/users'],
      ['GET', '/v1/users/me'],
      ['GET', `/v1/users/${owner.id}`],
      ['POST', '/v1/users', { email: 'key@example.com', name: 'Key', role: 'viewer' }],
      ['PATCH', `/v1/users/${owner.id}`, { name: 'renamed by a key' }],
      ['DELETE', `/v1/users/${owner.id}`],
      ['POST', '/v1/users/me/password', { current_password: 'x', new_password: 'long enough password' }],
      ['GET', '/v1/oauth_clients'],
      ['POST', '/v1/oauth_clients', { client_name: 'by key', redirect_uris: ['https://app.example.com/cb'] }],
      ['GET', `/v1/oauth_clients/${await tokens.publicClient(owner.accountId)}`],
      ['GET', '/v1/events'],
    ];
    for (const [method, path, body] of forbidden) expectRefused(await api.request(method, path, { token: key, body }), 403, 'forbidden');

    // Nothing was changed by any of it.
    expect((await api.get(`/v1/projects/${projectB}`, { token: admin })).body.name).not.toBe('taken over');
    expect((await api.get(`/v1/projects/${projectB}/api_keys/${keyOfB.id}`, { token: admin })).body.status).toBe('active');
    expect((await api.get(`/v1/users/${owner.id}`, { token: admin })).body.name).not.toBe('renamed by a key');
  });

  it('a read key reads but cannot write (403 insufficient_scope naming the scope)', async () => {
    const key = readKey.key;
    expect((await api.get(`/v1/projects/${projectA}`, { token: key })).status).toBe(200);
    expect((await api.get(`/v1/projects/${projectA}/configurations`, { token: key })).status).toBe(200);
    const writes: [string, string, unknown, string][] = [
      ['PATCH', `/v1/projects/${projectA}`, { name: 'nope' }, 'write'],
      ['POST', `/v1/projects/${projectA}/deployments`, { environment: 'production', branch: 'main' }, 'write'],
      ['POST', `/v1/projects/${projectA}/configurations`, { environment: 'production', key: 'K', value: 'v' }, 'write'],
      ['DELETE', `/v1/projects/${projectA}`, undefined, 'admin'],
    ];
    for (const [method, path, body, scope] of writes) {
      const res = await api.request(method, path, { token: key, body });
      expectRefused(res, 403, 'insufficient_scope');
      expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="slipway", error="insufficient_scope", scope="${scope}"`);
    }
  });

  it('records last_used_at (to the minute, without a write per request)', async () => {
    const project = await newProject();
    const { id, key } = await newKey(project, ['read']);
    const before = Date.now();
    for (let i = 0; i < 3; i++) expect((await api.get(`/v1/projects/${project}`, { token: key })).status).toBe(200);
    const lastUsed = await waitFor('last_used_at recorded', async () => ((await api.get(`/v1/projects/${project}/api_keys/${id}`, { token: admin })).body.last_used_at as string | null) ?? undefined, 5_000, 20);
    expect(Date.parse(lastUsed)).toBeGreaterThanOrEqual(before - 1000);
  });
});

describe('rotation, revocation and expiry', () => {
  it('rotation: the new secret works at once, the old one during the grace period only; another key is untouched', async () => {
    const project = await newProject();
    const a = await newKey(project, ['read']);
    const b = await newKey(project, ['read']);
    const grace = 2;
    const res = await api.post(`/v1/projects/${project}/api_keys/${a.id}/rotate`, { token: admin, body: { grace_period_seconds: grace } });
    expect(res.status).toBe(200);
    issued.push(res.body.key);
    expect(res.body).toMatchObject({ id: a.id, status: 'active', prefix: res.body.key.slice(0, 8), last_four: res.body.key.slice(-4), rotated_at: expect.any(String) });
    expect(res.body.key).not.toBe(a.key);

    expect((await api.get(`/v1/projects/${project}`, { token: res.body.key })).status).toBe(200);
    expect((await api.get(`/v1/projects/${project}`, { token: a.key })).status).toBe(200);
    expect((await api.get(`/v1/projects/${project}`, { token: b.key })).status).toBe(200);

    server.clock.advance(grace * 1000 + 100);
    expectInvalidToken(await api.get(`/v1/projects/${project}`, { token: a.key }));
    expect((await api.get(`/v1/projects/${project}`, { token: res.body.key })).status).toBe(200);
    expect((await api.get(`/v1/projects/${project}`, { token: b.key })).status).toBe(200);
    expect((await api.get(`/v1/projects/${project}/api_keys/${b.id}`, { token: admin })).body.rotated_at).toBeNull();
  });

  it('rotation without a grace period retires the old secret at once', async () => {
    const project = await newProject();
    const a = await newKey(project, ['read']);
    expect((await api.get(`/v1/projects/${project}`, { token: a.key })).status).toBe(200);
    const res = await api.post(`/v1/projects/${project}/api_keys/${a.id}/rotate`, { token: admin, body: {} });
    expect(res.status).toBe(200);
    issued.push(res.body.key);
    expectInvalidToken(await api.get(`/v1/projects/${project}`, { token: a.key }));
    expect((await api.get(`/v1/projects/${project}`, { token: res.body.key })).status).toBe(200);
  });

  it('a revoked key gets 401 invalid_token at once; revoking again returns it unchanged; it cannot be rotated', async () => {
    const project = await newProject();
    const a = await newKey(project, ['write']);
    expect((await api.get(`/v1/projects/${project}`, { token: a.key })).status).toBe(200);
    // The use is recorded in the background (last_used_at); let it land so the two answers compare alike.
    await waitFor('last_used_at recorded', async () => (await api.get(`/v1/projects/${project}/api_keys/${a.id}`, { token: admin })).body.last_used_at);
    const revoked = await api.delete(`/v1/projects/${project}/api_keys/${a.id}`, { token: admin });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: a.id, status: 'revoked' });
    expect(revoked.body.key).toBeUndefined();
    expectInvalidToken(await api.get(`/v1/projects/${project}`, { token: a.key }));
    const again = await api.delete(`/v1/projects/${project}/api_keys/${a.id}`, { token: admin });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(revoked.body);
    expectRefused(await api.post(`/v1/projects/${project}/api_keys/${a.id}/rotate`, { token: admin, body: {} }), 409, 'conflict');
    const active = await api.get(`/v1/projects/${project}/api_keys?status=active`, { token: admin });
    expect(active.body.data).toEqual([]);
    expect((await api.get(`/v1/projects/${project}/api_keys?status=revoked`, { token: admin })).body.data.map((k: { id: string }) => k.id)).toEqual([a.id]);
  });

  it('an expired key gets 401 invalid_token and is shown as expired', async () => {
    const project = await newProject();
    const expiresAt = server.clock.now() + 60_000;
    const a = await newKey(project, ['read'], { expires_at: new Date(expiresAt).toISOString() });
    expect((await api.get(`/v1/projects/${project}`, { token: a.key })).status).toBe(200);
    server.clock.advance(60_100);
    expectInvalidToken(await api.get(`/v1/projects/${project}`, { token: a.key }));
    expect((await api.get(`/v1/projects/${project}/api_keys/${a.id}`, { token: admin })).body.status).toBe('expired');
    expectRefused(await api.post(`/v1/projects/${project}/api_keys/${a.id}/rotate`, { token: admin, body: {} }), 409, 'conflict');
  });

  it('unknown and malformed slw_ keys get 401 invalid_token', async () => {
    const project = await newProject();
    const { key } = await newKey(project, ['read']);
    const body = 'A'.repeat(32);
    const unknown = `slw_${body}${apiKeyChecksum(body)}`;
    const badChecksum = `${key.slice(0, -1)}${key.endsWith('0') ? '1' : '0'}`;
    for (const token of [unknown, badChecksum, 'slw_short', `${key}x`]) expectInvalidToken(await api.get(`/v1/projects/${project}`, { token }));
  });

  it(`a key revoked through one instance is refused by another within its cache bound (${OTHER_INSTANCE_CACHE_SECONDS} s here)`, async () => {
    const other = await startTestServer({ dbName: server.config.mongodbDb, keysDir: server.config.keysDir, clock: server.clock, overrides: { principalCacheSeconds: OTHER_INSTANCE_CACHE_SECONDS } });
    try {
      const otherApi = await Api.connect(other.url);
      const project = await newProject();
      const a = await newKey(project, ['read']);
      expect((await otherApi.get(`/v1/projects/${project}`, { token: a.key })).status).toBe(200);
      expect((await api.delete(`/v1/projects/${project}/api_keys/${a.id}`, { token: admin })).status).toBe(200);
      // The other instance trusts what it cached until the bound has passed on the clock they share; then it reads again.
      server.clock.advance(OTHER_INSTANCE_CACHE_SECONDS * 1000 + 1);
      expectInvalidToken(await otherApi.get(`/v1/projects/${project}`, { token: a.key }));
    } finally {
      await other.stop();
    }
  });

  it("deleting a project revokes its keys and removes its configurations", async () => {
    const project = await newProject();
    const a = await newKey(project, ['admin']);
    const config = await api.post(`/v1/projects/${project}/configurations`, { token: a.key, body: { environment: 'production', key: 'TOKEN', value: 's3cret-value', secret: true } });
    expect(config.status).toBe(201);
    expect((await api.delete(`/v1/projects/${project}`, { token: admin })).status).toBe(204);
    expectInvalidToken(await api.get('/v1/projects', { token: a.key }));
    expect(await server.repos.configurations.collection.countDocuments({ project_id: project })).toBe(0);
    expect(await server.repos.apiKeys.collection.findOne({ _id: a.id })).toMatchObject({ status: 'revoked' });
    expect(await server.repos.apiKeySecrets.collection.countDocuments({ key_id: a.id })).toBe(0);
    const revokedEvent = await api.get(`/v1/events?type=api_key.revoked&project_id=${project}`, { token: admin });
    expect(revokedEvent.body.data[0].data).toMatchObject({ api_key_id: a.id, reason: 'project_deleted' });
  });
});

describe('the secret is shown once and kept nowhere', () => {
  it('no issued key appears in any collection of the database or in the server log', async () => {
    expect(issued.length).toBeGreaterThanOrEqual(10);
    // Keys were sent above as valid, rotated-out, revoked and expired credentials: all of that was logged.
    const dump = await dumpDatabase(server.running.container.database.db);
    const logs = server.logs.join('\n');
    expect(dump.length).toBeGreaterThan(1000);
    expect(logs).toContain('/api_keys');
    for (const key of issued) {
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice(4, 36));
      expect(logs).not.toContain(key);
      expect(logs).not.toContain(key.slice(4, 36));
    }
  });
});
