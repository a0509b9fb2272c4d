import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

const env = useApiServer();
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, token: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken: token } = env));

const stored = () => server.repos.projects.collection.countDocuments({ account_id: owner.accountId });
let n = 0;
const uniqueName = (prefix = 'project') => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
const create = (body: Record<string, unknown> = {}) => createProject(api, token, { name: uniqueName(), ...body });

describe('create, read, update', () => {
  it('creates: 201, Location, the full object; stored once with the folded name, no internals returned', async () => {
    const res = await api.post('/v1/projects', { token, body: { name: '  Checkout Service  ', deploy_target: 'fly' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^proj_[0-9a-z]{26}$/),
      name: 'Checkout Service',
      status: 'active',
      deploy_target: 'fly',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: res.body.created_at,
    });
    expect(res.headers.get('location')).toBe(`${server.url}/v1/projects/${res.body.id}`);
    const doc = await server.repos.projects.collection.findOne({ _id: res.body.id });
    expect(doc).toMatchObject({ account_id: owner.accountId, name: 'Checkout Service', name_lower: 'checkout service' });

    const got = await api.get(res.headers.get('location')!.replace(server.url, ''), { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('deploy_target is optional (null), one of the listed platforms, and updatable', async () => {
    const project = await create();
    expect(project.deploy_target).toBeNull();
    for (const target of ['aws', 'azure', 'gcp', 'kubernetes', 'vercel', 'netlify', 'cloudflare', 'fly', 'render', 'heroku']) {
      const res = await api.patch(`/v1/projects/${project.id}`, { token, body: { deploy_target: target } });
      expect(res.status).toBe(200);
      expect(res.body.deploy_target).toBe(target);
    }
    const cleared = await api.patch(`/v1/projects/${project.id}`, { token, body: { deploy_target: null } });
    expect(cleared.body.deploy_target).toBeNull();
    expect(Date.parse(cleared.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(project.updated_at));
    const bad = await api.post('/v1/projects', { token, body: { name: uniqueName(), deploy_target: 'digitalocean' } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual([{ field: 'deploy_target', message: expect.any(String) }]);
  });

  it('names are unique per account ignoring case (409 conflict), on create and on rename', async () => {
    const name = uniqueName('Unique');
    await create({ name });
    const before = await stored();
    for (const variant of [name, name.toUpperCase(), name.toLowerCase(), `  ${name}  `]) {
      const res = await api.post('/v1/projects', { token, body: { name: variant } });
      expect(res.status, variant).toBe(409);
      expect(res.body.error.code).toBe('conflict');
    }
    expect(await stored()).toBe(before);
    const other = await create();
    const rename = await api.patch(`/v1/projects/${other.id}`, { token, body: { name: name.toUpperCase() } });
    expect(rename.status).toBe(409);
    expect(rename.body.error.code).toBe('conflict');
    // Changing only the case of its own name is fine.
    const recase = await api.patch(`/v1/projects/${other.id}`, { token, body: { name: other.name.toUpperCase() } });
    expect(recase.status).toBe(200);
    expect(recase.body.name).toBe(other.name.toUpperCase());
  });

  it('the same name is fine in another account', async () => {
    const name = uniqueName('shared');
    await create({ name });
    const stranger = await tokens.user('owner');
    const res = await api.post('/v1/projects', { token: await tokens.accessToken(stranger, 'write'), body: { name } });
    expect(res.status).toBe(201);
  });

  it('accepts unicode names and counts characters, not bytes', async () => {
    for (const name of ['Übersicht – Café ☕', '部署サービス', '🚀'.repeat(100), 'ñ'.repeat(100)]) {
      const res = await api.post('/v1/projects', { token, body: { name } });
      expect(res.status, name).toBe(201);
      expect(res.body.name).toBe(name);
    }
  });
});

describe('invalid input: a clear error and nothing stored', () => {
  const cases: { label: string; body: unknown; field: string }[] = ([
    ['missing name', {}, 'name'],
    ['empty name', { name: '' }, 'name'],
    ['blank name', { name: '   ' }, 'name'],
    ['101-character name', { name: 'x'.repeat(101) }, 'name'],
    ['10,000-character name', { name: 'x'.repeat(10_000) }, 'name'],
    ['name with a newline', { name: 'a\nb' }, 'name'],
    ['operator object as name', { name: { $gt: '' } }, 'name'],
    ['number as name', { name: 42 }, 'name'],
    ['array as name', { name: ['a'] }, 'name'],
    ['null name', { name: null }, 'name'],
    ['unknown field', { name: 'fine', owner: 'me' }, 'owner'],
    ['status on create', { name: 'fine', status: 'paused' }, 'status'],
    ['id on create', { name: 'fine', id: 'proj_x' }, 'id'],
    ['$-led field', { name: 'fine', $where: '1' }, '$where'],
  ] as [string, unknown, string][]).map(([label, body, field]) => ({ label, body, field }));
  it.each(cases)('$label → 422 validation_failed naming $field', async ({ body, field }) => {
    const before = await stored();
    const res = await api.post('/v1/projects', { token, body });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(res.body.error.details).toContainEqual({ field, message: expect.any(String) });
    // Details never echo what was sent.
    expect(JSON.stringify(res.body)).not.toContain('xxxxxxxxxx');
    expect(await stored()).toBe(before);
  });

  it('a PATCH with nothing to change, unknown fields or bad types → 422', async () => {
    const project = await create();
    for (const body of [{}, { name: { $set: 'x' } }, { status: 'deleted' }, { nickname: 'x' }, { deploy_target: 5 }]) {
      const res = await api.patch(`/v1/projects/${project.id}`, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
    }
    const after = await api.get(`/v1/projects/${project.id}`, { token });
    expect(after.body).toEqual(project);
  });

  it('malformed ids are simply not found', async () => {
    for (const id of ['nope', 'proj_', 'proj_UPPERCASEUPPERCASEUPPERCASE', '%24gt', 'proj_01m7yyc0xe4c7t8c5f3e5w1w1e']) {
      const res = await api.get(`/v1/projects/${id}`, { token });
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('status transitions (docs/product.md §5)', () => {
  const ALLOWED: [string, string][] = [
    ['active', 'paused'],
    ['paused', 'active'],
    ['active', 'archived'],
    ['paused', 'archived'],
    ['archived', 'active'],
  ];
  const FORBIDDEN: [string, string][] = [['archived', 'paused']];

  async function projectIn(status: string) {
    const project = await create();
    const path = { active: [], paused: ['paused'], archived: ['archived'] }[status] as string[];
    for (const step of path) expect((await api.patch(`/v1/projects/${project.id}`, { token, body: { status: step } })).status).toBe(200);
    return project.id as string;
  }

  it.each(ALLOWED)('%s → %s is allowed', async (from, to) => {
    const id = await projectIn(from);
    const res = await api.patch(`/v1/projects/${id}`, { token, body: { status: to } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(to);
    expect((await server.repos.projects.collection.findOne({ _id: id }))?.status).toBe(to);
  });

  it.each(FORBIDDEN)('%s → %s is 409 invalid_transition and changes nothing', async (from, to) => {
    const id = await projectIn(from);
    const res = await api.patch(`/v1/projects/${id}`, { token, body: { status: to } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_transition');
    expect((await server.repos.projects.collection.findOne({ _id: id }))?.status).toBe(from);
  });

  it.each(['active', 'paused', 'archived'])('setting %s again is a no-op, not an error', async (status) => {
    const id = await projectIn(status);
    const res = await api.patch(`/v1/projects/${id}`, { token, body: { status } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(status);
  });

  it('an archived project refuses every write except unarchiving and deletion', async () => {
    const id = await projectIn('archived');
    for (const body of [{ name: uniqueName() }, { deploy_target: 'aws' }, { status: 'active', name: uniqueName() }]) {
      const res = await api.patch(`/v1/projects/${id}`, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(409);
      expect(res.body.error.code).toBe('project_not_active');
    }
    const deploy = await api.post(`/v1/projects/${id}/deployments`, { token, body: { environment: 'production', branch: 'main' } });
    expect(deploy.status).toBe(409);
    expect(deploy.body.error.code).toBe('project_not_active');
    expect(await server.repos.deployments.collection.countDocuments({ project_id: id })).toBe(0);

    const unarchived = await api.patch(`/v1/projects/${id}`, { token, body: { status: 'active' } });
    expect(unarchived.status).toBe(200);
    const archivedAgain = await projectIn('archived');
    expect((await api.delete(`/v1/projects/${archivedAgain}`, { token })).status).toBe(204);
  });

  it('a paused project can still be renamed but refuses new deployments', async () => {
    const id = await projectIn('paused');
    expect((await api.patch(`/v1/projects/${id}`, { token, body: { name: uniqueName('paused') } })).status).toBe(200);
    const deploy = await api.post(`/v1/projects/${id}/deployments`, { token, body: { environment: 'production', branch: 'main' } });
    expect(deploy.status).toBe(409);
    expect(deploy.body.error.code).toBe('project_not_active');
  });
});

describe('delete', () => {
  it('204, removes the project and its deployments; a second delete is 404', async () => {
    const project = await create();
    for (const branch of ['main', 'dev']) {
      expect((await api.post(`/v1/projects/${project.id}/deployments`, { token, body: { environment: 'production', branch } })).status).toBe(201);
    }
    expect(await server.repos.deployments.collection.countDocuments({ project_id: project.id })).toBe(2);
    const res = await api.delete(`/v1/projects/${project.id}`, { token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await server.repos.projects.collection.countDocuments({ _id: project.id })).toBe(0);
    expect(await server.repos.deployments.collection.countDocuments({ project_id: project.id })).toBe(0);
    expect((await api.get(`/v1/projects/${project.id}`, { token })).status).toBe(404);
    expect((await api.delete(`/v1/projects/${project.id}`, { token })).status).toBe(404);
  });
});

describe('pagination', () => {
  it('pages newest first with {data, pagination} and an RFC 8288 Link header', async () => {
    const account = await tokens.user('owner');
    const own = await tokens.accessToken(account, 'write');
    const names: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await api.post('/v1/projects', { token: own, body: { name: `p${i}` } });
      expect(res.status).toBe(201);
      names.push(res.body.name);
    }
    const first = await api.get('/v1/projects?per_page=3', { token: own });
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ page: 1, per_page: 3, total: 7 });
    expect(first.body.data.map((p: { name: string }) => p.name)).toEqual(['p6', 'p5', 'p4']);
    const base = `${server.url}/v1/projects`;
    expect(first.headers.get('link')).toBe(
      `<${base}?page=1&per_page=3>; rel="first", <${base}?page=2&per_page=3>; rel="next", <${base}?page=3&per_page=3>; rel="last"`,
    );
    const middle = await api.get('/v1/projects?page=2&per_page=3', { token: own });
    expect(middle.body.data.map((p: { name: string }) => p.name)).toEqual(['p3', 'p2', 'p1']);
    expect(middle.headers.get('link')).toBe(
      `<${base}?page=1&per_page=3>; rel="first", <${base}?page=1&per_page=3>; rel="prev", <${base}?page=3&per_page=3>; rel="next", <${base}?page=3&per_page=3>; rel="last"`,
    );
    const last = await api.get('/v1/projects?page=3&per_page=3', { token: own });
    expect(last.body.data.map((p: { name: string }) => p.name)).toEqual(['p0']);
    expect(last.headers.get('link')).not.toContain('rel="next"');
    const past = await api.get('/v1/projects?page=9&per_page=3', { token: own });
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ data: [], pagination: { page: 9, per_page: 3, total: 7 } });
    const defaults = await api.get('/v1/projects', { token: own });
    expect(defaults.body.pagination).toEqual({ page: 1, per_page: 20, total: 7 });
    expect((await api.get('/v1/projects?per_page=100', { token: own })).status).toBe(200);
  });

  it.each(['page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=1e3', 'page=', 'per_page=0', 'per_page=101', 'per_page=x', 'page=1&page=2'])(
    '?%s → 400 invalid_request with details',
    async (query) => {
      const res = await api.get(`/v1/projects?${query}`, { token });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details[0].field).toMatch(/^(page|per_page)$/);
    },
  );
});

describe('two accounts are isolated', () => {
  it('lists, totals, gets, patches, deletes and deployments of another account are invisible (404)', async () => {
    const alice = await tokens.user('owner');
    const bob = await tokens.user('owner');
    const aliceToken = await tokens.accessToken(alice, 'admin');
    const bobToken = await tokens.accessToken(bob, 'admin');
    const secret = await api.post('/v1/projects', { token: aliceToken, body: { name: 'alice-only' } });
    const dep = await api.post(`/v1/projects/${secret.body.id}/deployments`, { token: aliceToken, body: { environment: 'production', branch: 'main' } });
    expect(dep.status).toBe(201);
    await api.post('/v1/projects', { token: bobToken, body: { name: 'bob-only' } });

    const bobList = await api.get('/v1/projects', { token: bobToken });
    expect(bobList.body.pagination.total).toBe(1);
    expect(bobList.body.data.map((p: { name: string }) => p.name)).toEqual(['bob-only']);

    const id = secret.body.id;
    const attempts = [
      await api.get(`/v1/projects/${id}`, { token: bobToken }),
      await api.patch(`/v1/projects/${id}`, { token: bobToken, body: { name: 'stolen' } }),
      await api.patch(`/v1/projects/${id}`, { token: bobToken, body: { status: 'paused' } }),
      await api.delete(`/v1/projects/${id}`, { token: bobToken }),
      await api.get(`/v1/projects/${id}/deployments`, { token: bobToken }),
      await api.post(`/v1/projects/${id}/deployments`, { token: bobToken, body: { environment: 'production', branch: 'main' } }),
      await api.get(`/v1/projects/${id}/deployments/${dep.body.id}`, { token: bobToken }),
      await api.patch(`/v1/projects/${id}/deployments/${dep.body.id}`, { token: bobToken, body: { status: 'canceled' } }),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    // Bob's own project with Alice's deployment id: still not found.
    const bobProject = bobList.body.data[0].id;
    expect((await api.get(`/v1/projects/${bobProject}/deployments/${dep.body.id}`, { token: bobToken })).status).toBe(404);
    // Nothing changed on Alice's side.
    const after = await api.get(`/v1/projects/${id}`, { token: aliceToken });
    expect(after.body).toEqual(secret.body);
    const deps = await api.get(`/v1/projects/${id}/deployments`, { token: aliceToken });
    expect(deps.body.pagination.total).toBe(1);
    expect(deps.body.data[0].status).toBe('queued');
  });
});
