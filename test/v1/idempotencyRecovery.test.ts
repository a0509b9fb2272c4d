import { beforeAll, describe, expect, it } from 'vitest';
import type { Collection } from 'mongodb';
import type { Api } from '../support/api.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import type { TestServer } from '../support/server.ts';

/*
 * "What was seen" #1: a request with an Idempotency-Key runs at most once even when the service or the
 * database dies mid-request. A crash is reproduced by putting the key's record back into the state the
 * crash leaves it in (pending, no stored response) with or without the resource already written; the
 * retry must answer with the client's own resource (same id), never a second one, never a permanent
 * error, and a clear retryable 409 while the outcome is still unknown.
 */
const TAKEOVER_SECONDS = 1;
const env = useApiServer({ overrides: { idempotencyTakeoverSeconds: TAKEOVER_SECONDS, idempotencyWaitMs: 200, webhookAllowLoopback: true } });
let server: TestServer, api: Api, token: string;
beforeAll(() => ({ server, api, adminToken: token } = env));

let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
const records = () => server.repos.idempotencyKeys.collection;

/** The key's record as a crash leaves it: still pending, claimed just now (by the server's clock), no response stored. The takeover time is then reached by moving that clock. */
async function crashAfter(resourceId: string): Promise<void> {
  const { modifiedCount } = await records().updateOne({ resource_id: resourceId }, { $set: { state: 'pending', response: null, claimed_at: server.clock.date() } });
  expect(modifiedCount).toBe(1);
}

interface CreateRoute {
  name: string;
  path: () => Promise<string>;
  body: () => Record<string, unknown>;
  collection: () => Collection<{ _id: string }>;
  /** A field shown once: a recovered resource answers it as null. */
  shownOnce?: string;
  idField?: string;
}

let projectId: string;
const routes: CreateRoute[] = [
  { name: 'projects', path: async () => '/v1/projects', body: () => ({ name: unique('p') }), collection: () => server.repos.projects.collection as never },
  {
    name: 'deployments',
    path: async () => `/v1/projects/${projectId}/deployments`,
    body: () => ({ environment: 'production', branch: unique('b') }),
    collection: () => server.repos.deployments.collection as never,
  },
  {
    name: 'configurations',
    path: async () => `/v1/projects/${projectId}/configurations`,
    body: () => ({ environment: 'production', key: unique('K').toUpperCase().replace(/-/g, '_'), value: 'v', secret: true }),
    collection: () => server.repos.configurations.collection as never,
  },
  {
    name: 'API keys',
    path: async () => `/v1/projects/${projectId}/api_keys`,
    body: () => ({ name: unique('k'), scopes: ['read'] }),
    collection: () => server.repos.apiKeys.collection as never,
    shownOnce: 'key',
  },
  {
    name: 'users',
    path: async () => '/v1/users',
    body: () => ({ email: `${unique('u')}@example.com`, name: 'U', role: 'viewer' }),
    collection: () => server.repos.users.collection as never,
    shownOnce: 'invitation_url',
  },
  {
    name: 'OAuth clients',
    path: async () => '/v1/oauth_clients',
    body: () => ({ client_name: unique('c'), redirect_uris: [], grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: 'read' }),
    collection: () => server.repos.oauthClients.collection as never,
    shownOnce: 'client_secret',
    idField: 'client_id',
  },
  {
    name: 'webhooks',
    path: async () => '/v1/webhooks',
    body: () => ({ url: `http://127.0.0.1:9/${unique('hook')}`, events: ['project.created'] }),
    collection: () => server.repos.webhooks.collection as never,
    shownOnce: 'secret',
  },
];

beforeAll(async () => {
  projectId = (await createProject(api, token)).id as string;
});

describe('a retry after a crash returns the first outcome', () => {
  for (const route of routes) {
    it(`${route.name}: written before the crash → 409 with Retry-After while unknown, then the same resource, created once`, async () => {
      const path = await route.path();
      const body = route.body();
      const headers = { 'idempotency-key': unique('key') };
      const first = await api.post(path, { token, body, headers });
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      const id = first.body[route.idField ?? 'id'] as string;
      await crashAfter(id);

      const early = await api.post(path, { token, body, headers });
      expect(early.status).toBe(409);
      expect(early.body.error.code).toBe('conflict');
      expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      server.clock.advance(TAKEOVER_SECONDS * 1000 + 100);
      const retried = await api.post(path, { token, body, headers });
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expect(retried.body[route.idField ?? 'id']).toBe(id);
      expect(retried.headers.get('location')).toBe(first.headers.get('location'));
      if (route.shownOnce) {
        expect(first.body[route.shownOnce]).toEqual(expect.any(String));
        expect(retried.body[route.shownOnce]).toBeNull();
      }
      expect(await route.collection().countDocuments({ _id: id })).toBe(1);

      // The record is complete again: the next retry is a plain replay.
      const replayed = await api.post(path, { token, body, headers });
      expect(replayed.status).toBe(201);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body[route.idField ?? 'id']).toBe(id);
    });
  }

  it('a crash before the write: the retry creates it under the id reserved before the handler ran', async () => {
    const body = { name: unique('p') };
    const headers = { 'idempotency-key': unique('key') };
    const first = await api.post('/v1/projects', { token, body, headers });
    // As if the first run had died before its insert: the reservation holds the id, nothing is stored.
    await server.repos.projects.collection.deleteOne({ _id: first.body.id });
    await crashAfter(first.body.id);
    server.clock.advance(TAKEOVER_SECONDS * 1000 + 100);
    const retried = await api.post('/v1/projects', { token, body, headers });
    expect(retried.status).toBe(201);
    expect(retried.body.id).toBe(first.body.id);
    expect(await server.repos.projects.collection.countDocuments({ name: body.name })).toBe(1);
  });

  it('projects: the retry is not refused as a name conflict with its own first write (was: permanent 409)', async () => {
    const body = { name: unique('p') };
    const headers = { 'idempotency-key': unique('key') };
    const first = await api.post('/v1/projects', { token, body, headers });
    await crashAfter(first.body.id);
    server.clock.advance(TAKEOVER_SECONDS * 1000 + 100);
    const retried = await api.post('/v1/projects', { token, body, headers });
    expect(retried.status).toBe(201);
    expect(retried.body.id).toBe(first.body.id);
    // Someone else's request with that name still conflicts.
    const other = await api.post('/v1/projects', { token, body, headers: { 'idempotency-key': unique('key') } });
    expect(other.status).toBe(409);
  });

  it('deployments: the retry gets its deployment even if the project was paused since (was: created twice)', async () => {
    const project = await createProject(api, token);
    const path = `/v1/projects/${project.id}/deployments`;
    const body = { environment: 'production', branch: 'main' };
    const headers = { 'idempotency-key': unique('key') };
    const first = await api.post(path, { token, body, headers });
    await crashAfter(first.body.id);
    expect((await api.patch(`/v1/projects/${project.id}`, { token, body: { status: 'paused' } })).status).toBe(200);
    server.clock.advance(TAKEOVER_SECONDS * 1000 + 100);
    const retries = await Promise.all([0, 1, 2].map(() => api.post(path, { token, body, headers })));
    expect(retries.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(new Set(retries.map((r) => r.body.id))).toEqual(new Set([first.body.id]));
    expect(await server.repos.deployments.collection.countDocuments({ project_id: project.id })).toBe(1);
  });

  for (const route of ['configurations', 'api_keys'] as const) {
    it(`${route}: the retry gets its resource even if the project was archived since`, async () => {
      const project = await createProject(api, token);
      const path = `/v1/projects/${project.id}/${route}`;
      const body = route === 'configurations' ? { environment: 'production', key: 'REGION', value: 'eu' } : { name: 'ci', scopes: ['read'] };
      const headers = { 'idempotency-key': unique('key') };
      const first = await api.post(path, { token, body, headers });
      expect(first.status).toBe(201);
      await crashAfter(first.body.id);
      expect((await api.patch(`/v1/projects/${project.id}`, { token, body: { status: 'archived' } })).status).toBe(200);
      server.clock.advance(TAKEOVER_SECONDS * 1000 + 100);
      const retried = await api.post(path, { token, body, headers });
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expect(retried.body.id).toBe(first.body.id);
      // A new request is still refused by the archived project.
      const fresh = await api.post(path, { token, body: route === 'configurations' ? { ...body, key: 'OTHER' } : { ...body, name: 'other' }, headers: { 'idempotency-key': unique('key') } });
      expect(fresh.status).toBe(409);
      expect(fresh.body.error.code).toBe('project_not_active');
    });
  }

  it('a failed run keeps its reserved id: the retry runs again under the same id', async () => {
    const project = await createProject(api, token);
    await api.patch(`/v1/projects/${project.id}`, { token, body: { status: 'paused' } });
    const path = `/v1/projects/${project.id}/deployments`;
    const body = { environment: 'production', branch: 'main' };
    const headers = { 'idempotency-key': unique('key') };
    expect((await api.post(path, { token, body, headers })).status).toBe(409);
    // Marked failed just after the answer.
    const record = await waitFor('the record to be marked failed', async () => (await records().findOne({ state: 'failed', resource_id: { $regex: '^dep_' } })) ?? undefined, 5000, 20);
    await api.patch(`/v1/projects/${project.id}`, { token, body: { status: 'active' } });
    const retried = await api.post(path, { token, body, headers });
    expect(retried.status).toBe(201);
    expect(retried.body.id).toBe(record.resource_id);
  });
});

describe('records expire', () => {
  it('the sweeper removes records after 24 h; the key may then carry a new request', async () => {
    const headers = { 'idempotency-key': unique('key') };
    const first = await api.post('/v1/projects', { token, body: { name: unique('p') }, headers });
    await records().updateOne({ resource_id: first.body.id }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect(await server.repos.idempotencyKeys.sweep()).toBeGreaterThanOrEqual(1);
    expect(await records().countDocuments({ resource_id: first.body.id })).toBe(0);
    const again = await api.post('/v1/projects', { token, body: { name: unique('p') }, headers });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
  });
});
