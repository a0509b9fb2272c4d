import { beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, Slipway } from '../src/index.ts';
import { harness, login, recordingFetch, unique } from './support/env.ts';

/** Every item of a lazy iterator. */
async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterator) items.push(item);
  return items;
}

let slipway: Slipway;
let adminToken: string;
beforeAll(async () => {
  adminToken = (await login(harness(), 'read write admin')).accessToken;
  slipway = new Slipway({ baseUrl: harness().base_url, accessToken: adminToken, maxRetries: 0 });
});

describe('with an API key (read write, one project)', () => {
  it('creates and updates a deployment of its project and lists it', async () => {
    const info = harness();
    const ci = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key });
    const projectId = info.api_key.project_id;
    const deployment = await ci.deployments.create(projectId, { environment: 'production', branch: 'main', commit_sha: '3f2a9c1' });
    expect(deployment).toMatchObject({ project_id: projectId, status: 'queued', branch: 'main' });
    const building = await ci.deployments.update(projectId, deployment.id, { status: 'building' });
    expect(building.status).toBe('building');
    expect((await ci.deployments.get(projectId, deployment.id)).status).toBe('building');
    const page = await ci.projects.list();
    expect(page.data.map((p) => p.id)).toEqual([projectId]);
  });
});

describe('every resource: create, get, list, paginate over more than one page, update, delete', () => {
  it('projects', async () => {
    const prefix = unique('proj');
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await slipway.projects.create({ name: `${prefix}-${i}`, deploy_target: 'fly' }));
    expect(created[0]).toMatchObject({ name: `${prefix}-0`, status: 'active', deploy_target: 'fly' });
    expect((await slipway.projects.get(created[0]!.id)).name).toBe(`${prefix}-0`);

    const page = await slipway.projects.list({ per_page: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.pagination).toMatchObject({ page: 1, per_page: 2 });
    expect(page.pagination.total).toBeGreaterThanOrEqual(6);

    // The iterator fetches pages lazily: stopping after three items made two requests of two.
    const recorder = recordingFetch();
    const counted = new Slipway({ baseUrl: harness().base_url, accessToken: adminToken, fetch: recorder.fetch });
    const firstThree = [];
    for await (const project of counted.projects.listAll({ per_page: 2 })) {
      firstThree.push(project.id);
      if (firstThree.length === 3) break;
    }
    expect(recorder.calls.map((c) => new URL(c.url).searchParams.get('page'))).toEqual(['1', '2']);
    const all = await collect(slipway.projects.listAll({ per_page: 2 }));
    // Other test files add projects to the same account meanwhile: at least the total seen before, no repeats.
    expect(all.length).toBeGreaterThanOrEqual(page.pagination.total);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    for (const id of [...created.map((c) => c.id), ...firstThree]) expect(all.map((p) => p.id)).toContain(id);

    const renamed = await slipway.projects.update(created[0]!.id, { name: `${prefix}-renamed`, status: 'paused' });
    expect(renamed).toMatchObject({ name: `${prefix}-renamed`, status: 'paused' });
    for (const c of created) await slipway.projects.delete(c.id);
    await expect(slipway.projects.get(created[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deployments (with filters)', async () => {
    const project = await slipway.projects.create({ name: unique('deploys') });
    for (let i = 0; i < 5; i += 1) await slipway.deployments.create(project.id, { environment: i < 3 ? 'staging' : 'production', branch: `feature-${i}` });
    const page = await slipway.deployments.list(project.id, { per_page: 2, environment: 'staging' });
    expect(page.pagination.total).toBe(3);
    const staging = await collect(slipway.deployments.listAll(project.id, { per_page: 2, environment: 'staging' }));
    expect(staging.map((d) => d.environment)).toEqual(['staging', 'staging', 'staging']);
    const all = await collect(slipway.deployments.listAll(project.id, { per_page: 2 }));
    expect(all).toHaveLength(5);
    const updated = await slipway.deployments.update(project.id, all[0]!.id, { status: 'canceled', status_message: 'superseded' });
    expect(updated).toMatchObject({ status: 'canceled', status_message: 'superseded' });
    // Deployments have no DELETE of their own: they go with their project.
    await slipway.projects.delete(project.id);
    await expect(slipway.deployments.get(project.id, all[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('configurations (secret values revealed on request)', async () => {
    const project = await slipway.projects.create({ name: unique('configs') });
    for (let i = 0; i < 5; i += 1) await slipway.configurations.create(project.id, { environment: 'production', key: `KEY_${i}`, value: `value-${i}` });
    const secret = await slipway.configurations.create(project.id, { environment: 'production', key: 'DATABASE_URL', value: 'postgres://secret', secret: true });
    expect(secret.value).not.toBe('postgres://secret');
    expect((await slipway.configurations.get(project.id, secret.id, { reveal: true })).value).toBe('postgres://secret');
    const all = await collect(slipway.configurations.listAll(project.id, { per_page: 2, environment: 'production' }));
    expect(all.map((c) => c.key).sort()).toEqual(['DATABASE_URL', 'KEY_0', 'KEY_1', 'KEY_2', 'KEY_3', 'KEY_4']);
    const updated = await slipway.configurations.update(project.id, all[0]!.id, { value: 'changed' });
    expect(updated.id).toBe(all[0]!.id);
    await slipway.configurations.delete(project.id, all[0]!.id);
    await expect(slipway.configurations.get(project.id, all[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await slipway.configurations.list(project.id)).pagination.total).toBe(5);
    await slipway.projects.delete(project.id);
  });

  it('API keys: create (secret once), rotate, revoke', async () => {
    const project = await slipway.projects.create({ name: unique('keys') });
    const keys = [];
    for (let i = 0; i < 3; i += 1) keys.push(await slipway.apiKeys.create(project.id, { name: `ci-${i}`, scopes: ['read'] }));
    expect(keys[0]!.key).toMatch(/^slw_/);
    const reader = new Slipway({ baseUrl: harness().base_url, apiKey: keys[0]!.key! });
    expect((await reader.projects.get(project.id)).id).toBe(project.id);

    expect((await slipway.apiKeys.get(project.id, keys[1]!.id)).name).toBe('ci-1');
    const all = await collect(slipway.apiKeys.listAll(project.id, { per_page: 2 }));
    expect(all.map((k) => k.id).sort()).toEqual(keys.map((k) => k.id).sort());
    expect(all.every((k) => !('key' in k) || k.key === undefined)).toBe(true);

    const rotated = await slipway.apiKeys.rotate(project.id, keys[1]!.id, { grace_period_seconds: 0 });
    expect(rotated.key).toMatch(/^slw_/);
    expect(rotated.key).not.toBe(keys[1]!.key);
    const revoked = await slipway.apiKeys.revoke(project.id, keys[0]!.id);
    expect(revoked.status).toBe('revoked');
    const active = await collect(slipway.apiKeys.listAll(project.id, { per_page: 2, status: 'active' }));
    expect(active.map((k) => k.id).sort()).toEqual([keys[1]!.id, keys[2]!.id].sort());
    await slipway.projects.delete(project.id);
  });

  it('users', async () => {
    const prefix = unique('user');
    const created = [];
    for (let i = 0; i < 3; i += 1) created.push(await slipway.users.create({ email: `${prefix}-${i}@example.com`, name: `User ${i}`, role: 'developer' }));
    expect(created[0]).toMatchObject({ status: 'invited', invitation_url: expect.stringContaining('/dashboard/invitation?token=') });
    // A first password given by the inviter is still an invitation the person accepts.
    const withPassword = await slipway.users.create({ email: `${prefix}-p@example.com`, name: 'With Password', role: 'viewer', password: 'a long enough passphrase' });
    expect(withPassword.status).toBe('invited');
    expect((await slipway.users.me()).id).toBe(harness().owner.id);
    // The person's accounts: the owner is in one, the one this credential acts in.
    const accounts = await slipway.accounts.list();
    expect(accounts.data).toEqual([expect.objectContaining({ account_id: harness().owner.account_id, role: 'owner', user_id: harness().owner.id, current: true })]);
    expect((await slipway.users.get(created[0]!.id)).email).toBe(`${prefix}-0@example.com`);
    const all = await collect(slipway.users.listAll({ per_page: 2 }));
    expect(all.length).toBeGreaterThanOrEqual(6);
    for (const u of [...created, withPassword]) expect(all.map((x) => x.id)).toContain(u.id);
    const updated = await slipway.users.update(created[0]!.id, { name: 'Renamed', role: 'admin' });
    expect(updated).toMatchObject({ name: 'Renamed', role: 'admin' });
    for (const u of [...created, withPassword]) await slipway.users.delete(u.id);
    await expect(slipway.users.get(created[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('OAuth clients', async () => {
    const prefix = unique('app');
    const spa = await slipway.oauthClients.create({ client_name: `${prefix} SPA`, redirect_uris: ['https://app.example.com/callback'] });
    expect(spa.client_secret).toBeNull();
    const service = await slipway.oauthClients.create({ client_name: `${prefix} service`, token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'] });
    expect(service.client_secret).toMatch(/^slwcs_/);
    const third = await slipway.oauthClients.create({ client_name: `${prefix} third`, redirect_uris: ['com.example.app:/callback'] });
    expect((await slipway.oauthClients.get(spa.client_id)).client_name).toBe(`${prefix} SPA`);
    const all = await collect(slipway.oauthClients.listAll({ per_page: 2 }));
    for (const c of [spa, service, third]) expect(all.map((x) => x.client_id)).toContain(c.client_id);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const rotated = await slipway.oauthClients.rotateSecret(service.client_id);
    expect(rotated.client_secret).toMatch(/^slwcs_/);
    expect(rotated.client_secret).not.toBe(service.client_secret);
    for (const c of [spa, service, third]) await slipway.oauthClients.delete(c.client_id);
    await expect(slipway.oauthClients.get(spa.client_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('events: the audit log, filtered and paginated (read-only)', async () => {
    const project = await slipway.projects.create({ name: unique('audited') });
    await slipway.projects.update(project.id, { status: 'paused' });
    await slipway.projects.update(project.id, { status: 'active' });
    const page = await slipway.events.list({ project_id: project.id, per_page: 2 });
    expect(page.pagination.total).toBeGreaterThanOrEqual(3);
    const events = await collect(slipway.events.listAll({ project_id: project.id, per_page: 2 }));
    expect(events).toHaveLength(page.pagination.total);
    expect(events.every((e) => e.project_id === project.id)).toBe(true);
    expect(events.map((e) => e.type)).toContain('project.created');
    const created = await collect(slipway.events.listAll({ type: 'project.created', per_page: 50 }));
    expect(created.every((e) => e.type === 'project.created')).toBe(true);
    await slipway.projects.delete(project.id);
  });
});
