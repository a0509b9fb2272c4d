import { beforeAll, describe, expect, it } from 'vitest';
import type { Api, ApiResponse } from '../support/api.ts';
import { dumpDatabase } from '../support/database.ts';
import { createProject, expectRefused, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/**
 * Configurations over HTTP (docs/product.md §5): CRUD per project and environment, secret values encrypted at
 * rest and shown only with `?reveal=true` to admin, a secret never made plain again.
 */

const env = useApiServer();
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, admin: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken: admin } = env));
/** Secret values written in this file: none may be stored or logged in plaintext. */
const secrets: string[] = [];

let n = 0;
const secretValue = () => {
  const value = `sk_live_${++n}_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  secrets.push(value);
  return value;
};

const newProject = async (): Promise<string> => (await createProject(api, admin)).id;

async function create(projectId: string, body: Record<string, unknown>, token = admin): Promise<ApiResponse['body']> {
  const res = await api.post(`/v1/projects/${projectId}/configurations`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('create, read, update, delete', () => {
  it('creates a plain variable: 201, Location, the full object; reads, updates and deletes it', async () => {
    const project = await newProject();
    const res = await api.post(`/v1/projects/${project}/configurations`, { token: admin, body: { environment: 'production', key: 'DATABASE_URL', value: 'postgres://db/app' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cfg_[0-9a-z]{26}$/),
      project_id: project,
      environment: 'production',
      key: 'DATABASE_URL',
      value: 'postgres://db/app',
      secret: false,
      created_at: expect.stringMatching(/Z$/),
      updated_at: res.body.created_at,
    });
    expect(res.headers.get('location')).toBe(`${server.url}/v1/projects/${project}/configurations/${res.body.id}`);
    const path = `/v1/projects/${project}/configurations/${res.body.id}`;
    expect((await api.get(path, { token: admin })).body).toEqual(res.body);

    const updated = await api.patch(path, { token: admin, body: { value: 'postgres://db2/app' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ value: 'postgres://db2/app', secret: false, key: 'DATABASE_URL', environment: 'production' });
    expect(Date.parse(updated.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(res.body.updated_at));

    expect((await api.delete(path, { token: admin })).status).toBe(204);
    expectRefused(await api.get(path, { token: admin }), 404, 'not_found');
    expectRefused(await api.delete(path, { token: admin }), 404, 'not_found');
  });

  it('keys are unique per project and environment (409); the same key in another environment or project is fine', async () => {
    const project = await newProject();
    await create(project, { environment: 'production', key: 'PORT', value: '8080' });
    expectRefused(await api.post(`/v1/projects/${project}/configurations`, { token: admin, body: { environment: 'production', key: 'PORT', value: '9090' } }), 409, 'conflict');
    await create(project, { environment: 'staging', key: 'PORT', value: '9090' });
    await create(await newProject(), { environment: 'production', key: 'PORT', value: '8080' });
  });

  it('validates key, environment, value size and unknown fields (422); key and environment cannot be changed', async () => {
    const project = await newProject();
    const cases: [Record<string, unknown>, string][] = [
      [{ environment: 'production', key: '1ABC', value: 'x' }, 'key'],
      [{ environment: 'production', key: 'A-B', value: 'x' }, 'key'],
      [{ environment: 'production', key: `K${'x'.repeat(256)}`, value: 'x' }, 'key'],
      [{ environment: 'Prod', key: 'A', value: 'x' }, 'environment'],
      [{ environment: 'production', key: 'A', value: 'x'.repeat(32 * 1024 + 1) }, 'value'],
      [{ environment: 'production', key: 'A', value: 'é'.repeat(16 * 1024 + 1) }, 'value'],
      [{ environment: 'production', key: 'A', value: 42 }, 'value'],
      [{ environment: 'production', key: 'A', value: 'x', secret: 'yes' }, 'secret'],
      [{ environment: 'production', key: 'A', value: 'x', project_id: project }, 'project_id'],
      [{ environment: 'production', key: { $gt: '' }, value: 'x' }, 'key'],
    ];
    for (const [body, field] of cases) {
      const res = await api.post(`/v1/projects/${project}/configurations`, { token: admin, body });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field), JSON.stringify(body).slice(0, 80)).toContain(field);
    }
    // Exactly 32 KiB is allowed.
    await create(project, { environment: 'production', key: 'BIG', value: 'x'.repeat(32 * 1024) });
    const made = await create(project, { environment: 'production', key: 'A', value: 'x' });
    for (const body of [{}, { key: 'B' }, { environment: 'staging' }]) {
      expectRefused(await api.patch(`/v1/projects/${project}/configurations/${made.id}`, { token: admin, body }), 422, 'validation_failed');
    }
  });

  it('lists ordered by environment then key, filters by environment, pages with Link', async () => {
    const project = await newProject();
    for (const [environment, key] of [['staging', 'B'], ['production', 'Z'], ['production', 'A'], ['staging', 'A']] as const) await create(project, { environment, key, value: `${environment}-${key}` });
    const all = await api.get(`/v1/projects/${project}/configurations`, { token: admin });
    expect(all.body.data.map((c: { environment: string; key: string }) => `${c.environment}/${c.key}`)).toEqual(['production/A', 'production/Z', 'staging/A', 'staging/B']);
    expect(all.body.pagination).toEqual({ page: 1, per_page: 20, total: 4 });
    const staging = await api.get(`/v1/projects/${project}/configurations?environment=staging&per_page=1&page=2`, { token: admin });
    expect(staging.body.data.map((c: { key: string }) => c.key)).toEqual(['B']);
    expect(staging.body.pagination).toEqual({ page: 2, per_page: 1, total: 2 });
    expect(staging.headers.get('link')).toContain('environment=staging');
    expect(staging.headers.get('link')).toContain('rel="prev"');
    expectRefused(await api.get(`/v1/projects/${project}/configurations?environment=NOPE`, { token: admin }), 400, 'invalid_request');
    expectRefused(await api.get(`/v1/projects/${project}/configurations?env=staging`, { token: admin }), 400, 'invalid_request');
  });

  it("another account's project and its variables are 404 for every operation", async () => {
    const project = await newProject();
    const made = await create(project, { environment: 'production', key: 'A', value: 'x' });
    const stranger = await tokens.user('owner');
    const theirs = await tokens.accessToken(stranger, 'admin');
    const base = `/v1/projects/${project}/configurations`;
    expectRefused(await api.get(base, { token: theirs }), 404, 'not_found');
    expectRefused(await api.post(base, { token: theirs, body: { environment: 'production', key: 'B', value: 'y' } }), 404, 'not_found');
    expectRefused(await api.get(`${base}/${made.id}`, { token: theirs }), 404, 'not_found');
    expectRefused(await api.patch(`${base}/${made.id}`, { token: theirs, body: { value: 'z' } }), 404, 'not_found');
    expectRefused(await api.delete(`${base}/${made.id}`, { token: theirs }), 404, 'not_found');
    // And a variable id under another project of the right account.
    expectRefused(await api.get(`/v1/projects/${await newProject()}/configurations/${made.id}`, { token: admin }), 404, 'not_found');
    expect((await api.get(`${base}/${made.id}`, { token: admin })).body.value).toBe('x');
  });

  it('an archived project refuses creating, changing and deleting variables (409 project_not_active); a paused one does not', async () => {
    const project = await newProject();
    const made = await create(project, { environment: 'production', key: 'A', value: 'x' });
    const base = `/v1/projects/${project}/configurations`;
    expect((await api.patch(`/v1/projects/${project}`, { token: admin, body: { status: 'paused' } })).status).toBe(200);
    expect((await api.patch(`${base}/${made.id}`, { token: admin, body: { value: 'paused-ok' } })).status).toBe(200);
    expect((await api.patch(`/v1/projects/${project}`, { token: admin, body: { status: 'archived' } })).status).toBe(200);
    expectRefused(await api.post(base, { token: admin, body: { environment: 'production', key: 'B', value: 'y' } }), 409, 'project_not_active');
    expectRefused(await api.patch(`${base}/${made.id}`, { token: admin, body: { value: 'z' } }), 409, 'project_not_active');
    expectRefused(await api.delete(`${base}/${made.id}`, { token: admin }), 409, 'project_not_active');
    expect((await api.get(`${base}/${made.id}`, { token: admin })).body.value).toBe('paused-ok');
  });
});

describe('secret values', () => {
  it('are encrypted at rest: the collection holds ciphertext with a key id, never the value', async () => {
    const project = await newProject();
    const value = secretValue();
    const made = await create(project, { environment: 'production', key: 'STRIPE_KEY', value, secret: true });
    expect(made).toMatchObject({ key: 'STRIPE_KEY', secret: true, value: null });
    const stored = await server.repos.configurations.collection.findOne({ _id: made.id });
    expect(stored).toMatchObject({ secret: true, value: null, value_encrypted: { alg: 'A256GCM', kid: server.running.container.keys.data.current } });
    expect(JSON.stringify(stored)).not.toContain(value);
    // A plain variable is stored as it is (the check above is not vacuous).
    const plain = await create(project, { environment: 'production', key: 'PLAIN', value: 'visible-value' });
    expect(JSON.stringify(await server.repos.configurations.collection.findOne({ _id: plain.id }))).toContain('visible-value');
  });

  it('are null on read; `?reveal=true` shows them to admin (owner or admin role with the admin scope) and to nobody else', async () => {
    const project = await newProject();
    const value = secretValue();
    const made = await create(project, { environment: 'production', key: 'TOKEN', value, secret: true });
    const one = `/v1/projects/${project}/configurations/${made.id}`;
    const list = `/v1/projects/${project}/configurations`;

    expect((await api.get(one, { token: admin })).body.value).toBeNull();
    expect((await api.get(`${one}?reveal=false`, { token: admin })).body.value).toBeNull();
    expect((await api.get(`${one}?reveal=true`, { token: admin })).body.value).toBe(value);
    expect((await api.get(`${list}?reveal=true`, { token: admin })).body.data[0].value).toBe(value);
    expect((await api.get(list, { token: admin })).body.data[0].value).toBeNull();

    const adminUser = await tokens.user('admin', owner.accountId);
    expect((await api.get(`${one}?reveal=true`, { token: await tokens.accessToken(adminUser, 'admin') })).body.value).toBe(value);
    const refusals: [string, string][] = [
      [await tokens.accessToken(adminUser, 'write'), 'insufficient_scope'],
      [await tokens.accessToken(owner, 'read'), 'insufficient_scope'],
      [await tokens.accessToken(await tokens.user('developer', owner.accountId), 'admin'), 'forbidden'],
      [await tokens.accessToken(await tokens.user('viewer', owner.accountId), 'admin'), 'forbidden'],
    ];
    for (const [token, code] of refusals) {
      for (const path of [`${one}?reveal=true`, `${list}?reveal=true`]) {
        const res = await api.get(path, { token });
        expectRefused(res, 403, code);
        expect(res.text).not.toContain(value);
      }
      // The same caller reads the variable without the secret.
      expect((await api.get(one, { token })).body).toMatchObject({ key: 'TOKEN', value: null });
    }
    expectRefused(await api.get(`${one}?reveal=yes`, { token: admin }), 400, 'invalid_request');
  });

  it('an API key of the project reveals only with the admin scope (docs/product.md §3 does not exclude keys from it)', async () => {
    const project = await newProject();
    const value = secretValue();
    const made = await create(project, { environment: 'production', key: 'TOKEN', value, secret: true });
    const one = `/v1/projects/${project}/configurations/${made.id}?reveal=true`;
    const key = async (scopes: string[]) => {
      const res = await api.post(`/v1/projects/${project}/api_keys`, { token: admin, body: { name: scopes.join('+'), scopes } });
      expect(res.status).toBe(201);
      return res.body.key as string;
    };
    expect((await api.get(one, { token: await key(['admin']) })).body.value).toBe(value);
    expectRefused(await api.get(one, { token: await key(['write']) }), 403, 'insufficient_scope');
  });

  it('a secret cannot be made plain (422 on `secret`); a plain value can become secret and is then encrypted', async () => {
    const project = await newProject();
    const value = secretValue();
    const made = await create(project, { environment: 'production', key: 'TOKEN', value, secret: true });
    const path = `/v1/projects/${project}/configurations/${made.id}`;
    for (const body of [{ secret: false }, { secret: false, value: 'now plain' }]) {
      const res = await api.patch(path, { token: admin, body });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details).toEqual([{ field: 'secret', message: expect.stringMatching(/cannot be made non-secret/) }]);
    }
    expect((await api.get(`${path}?reveal=true`, { token: admin })).body).toMatchObject({ secret: true, value });
    // A new value for a secret stays secret.
    const newValue = secretValue();
    expect((await api.patch(path, { token: admin, body: { value: newValue } })).body).toMatchObject({ secret: true, value: null });
    expect((await api.get(`${path}?reveal=true`, { token: admin })).body.value).toBe(newValue);

    const plainValue = secretValue();
    const plain = await create(project, { environment: 'production', key: 'LATER', value: plainValue });
    const promoted = await api.patch(`/v1/projects/${project}/configurations/${plain.id}`, { token: admin, body: { secret: true } });
    expect(promoted.body).toMatchObject({ secret: true, value: null });
    const stored = await server.repos.configurations.collection.findOne({ _id: plain.id });
    expect(stored).toMatchObject({ value: null, secret: true });
    expect(JSON.stringify(stored)).not.toContain(plainValue);
    expect((await api.get(`/v1/projects/${project}/configurations/${plain.id}?reveal=true`, { token: admin })).body.value).toBe(plainValue);
  });

  it('an Idempotency-Key replay of a secret creation stores no value and answers the same', async () => {
    const project = await newProject();
    const value = secretValue();
    const headers = { 'idempotency-key': `cfg-${Date.now()}` };
    const body = { environment: 'production', key: 'IDEMPOTENT', value, secret: true };
    const first = await api.post(`/v1/projects/${project}/configurations`, { token: admin, body, headers });
    const again = await api.post(`/v1/projects/${project}/configurations`, { token: admin, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await server.repos.configurations.collection.countDocuments({ project_id: project })).toBe(1);
    // The remembered request and response are in the database: the value is not.
    expect(JSON.stringify(await server.repos.idempotencyKeys.collection.find({}).toArray())).not.toContain(value);
  });

  it('no secret value appears anywhere in the database, in the audit log or in the server log', async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    const dump = await dumpDatabase(server.running.container.database.db);
    const events = await api.get('/v1/events?per_page=100', { token: admin });
    expect(events.body.data.some((e: { type: string }) => e.type === 'configuration.updated')).toBe(true);
    const logs = server.logs.join('\n');
    expect(logs).toContain('/configurations');
    for (const value of secrets) {
      expect(dump).not.toContain(value);
      expect(events.text).not.toContain(value);
      expect(logs).not.toContain(value);
    }
  });
});
