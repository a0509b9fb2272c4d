import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

const env = useApiServer();
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, token: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken: token } = env));

const project = async (): Promise<string> => (await createProject(api, token)).id;
async function deploy(projectId: string, body: Record<string, unknown> = {}, as = token) {
  return await api.post(`/v1/projects/${projectId}/deployments`, { token: as, body: { environment: 'production', branch: 'main', ...body } });
}
const move = (projectId: string, id: string, body: Record<string, unknown>) => api.patch(`/v1/projects/${projectId}/deployments/${id}`, { token, body });
const storedCount = (projectId: string) => server.repos.deployments.collection.countDocuments({ project_id: projectId });

describe('create', () => {
  it('201 queued with the full record, Location, and created_by of the user', async () => {
    const pid = await project();
    const res = await deploy(pid, { environment: 'staging', branch: 'feature/login', commit_sha: '9FCEB02D0AE598E95DC970B74767F19372D61AF8' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^dep_[0-9a-z]{26}$/),
      project_id: pid,
      environment: 'staging',
      branch: 'feature/login',
      commit_sha: '9fceb02d0ae598e95dc970b74767f19372d61af8',
      status: 'queued',
      status_message: null,
      url: null,
      created_by: { type: 'user', id: owner.id },
      kind: 'deploy',
      source_deployment_id: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: res.body.created_at,
      started_at: null,
      finished_at: null,
    });
    expect(res.headers.get('location')).toBe(`${server.url}/v1/projects/${pid}/deployments/${res.body.id}`);
    const got = await api.get(`/v1/projects/${pid}/deployments/${res.body.id}`, { token });
    expect(got.body).toEqual(res.body);
  });

  it('created_by names the OAuth client for client_credentials tokens', async () => {
    const pid = await project();
    const { token: clientToken, clientId } = await tokens.forClient(owner.accountId, 'write');
    const res = await deploy(pid, {}, clientToken);
    expect(res.status).toBe(201);
    expect(res.body.created_by).toEqual({ type: 'client', id: clientId });
  });

  const VALID_BRANCHES = ['main', 'feature/x', 'release-1.2', 'users/ana/fix_bug', 'ünïcode', 'a'.repeat(255), 'v1.0', 'a.b/c'];
  const INVALID_BRANCHES = [
    '', 'a'.repeat(256), '-leading-dash', 'has space', 'tilde~1', 'caret^', 'colon:', 'question?', 'star*', 'bracket[', 'back\\slash',
    'double..dot', 'ends.', 'ends/', '/starts', 'double//slash', '.hidden', 'dir/.hidden', 'x.lock', 'dir/x.lock/y', 'at@{brace', '@', 'HEAD', 'tab\there', 'nul\u0000',
  ];

  it.each(VALID_BRANCHES.map((b) => [b.length > 40 ? `${b.slice(0, 10)}… (${b.length})` : b, b]))('branch %s is accepted', async (_label, branch) => {
    const pid = await project();
    const res = await deploy(pid, { branch });
    expect(res.status).toBe(201);
    expect(res.body.branch).toBe(branch);
  });

  it.each(INVALID_BRANCHES.map((b) => [JSON.stringify(b.length > 40 ? `${b.slice(0, 10)}… (${b.length})` : b), b]))('branch %s → 422, nothing stored', async (_label, branch) => {
    const pid = await project();
    const res = await deploy(pid, { branch });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([{ field: 'branch', message: expect.any(String) }]);
    expect(await storedCount(pid)).toBe(0);
  });

  it.each([
    ['environment', { environment: 'Production' }],
    ['environment', { environment: '-prod' }],
    ['environment', { environment: 'a'.repeat(64) }],
    ['environment', { environment: '' }],
    ['environment', { environment: 'prod_1' }],
    ['environment', { environment: { $ne: null } }],
    ['commit_sha', { commit_sha: 'abc12' }],
    ['commit_sha', { commit_sha: 'g'.repeat(40) }],
    ['commit_sha', { commit_sha: 'a'.repeat(41) }],
    ['status', { status: 'succeeded' }],
    ['url', { url: 'https://example.com' }],
  ])('%s invalid (%j) → 422, nothing stored', async (field, body) => {
    const pid = await project();
    const res = await deploy(pid, body);
    expect(res.status).toBe(422);
    expect(res.body.error.details).toContainEqual({ field, message: expect.any(String) });
    expect(await storedCount(pid)).toBe(0);
  });

  it('environment edge cases that are valid: 63 characters, digits first, dashes', async () => {
    const pid = await project();
    for (const environment of ['a'.repeat(63), '1st', 'eu-west-1', 'x']) expect((await deploy(pid, { environment })).status).toBe(201);
    expect((await deploy(pid, { commit_sha: 'abcdef1' })).status).toBe(201);
    expect((await deploy(pid, { commit_sha: null })).body.commit_sha).toBeNull();
  });

  it('paused and archived projects refuse new deployments with 409 project_not_active', async () => {
    for (const status of ['paused', 'archived']) {
      const pid = await project();
      expect((await api.patch(`/v1/projects/${pid}`, { token, body: { status } })).status).toBe(200);
      const res = await deploy(pid);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'project_not_active', status: 409 });
      expect(await storedCount(pid)).toBe(0);
    }
  });
});

describe('status machine', () => {
  const PATHS: Record<string, string[]> = {
    queued: [],
    building: ['building'],
    deploying: ['building', 'deploying'],
    succeeded: ['building', 'deploying', 'succeeded'],
    failed: ['failed'],
    canceled: ['canceled'],
  };
  const STATUSES = ['queued', 'building', 'deploying', 'succeeded', 'failed', 'canceled', 'superseded'];
  const ALLOWED = new Set(['queued>building', 'building>deploying', 'deploying>succeeded', ...['queued', 'building', 'deploying'].flatMap((s) => [`${s}>failed`, `${s}>canceled`])]);

  async function deploymentIn(status: string) {
    const pid = await project();
    const created = await deploy(pid);
    for (const step of PATHS[status]!) expect((await move(pid, created.body.id, { status: step })).status).toBe(200);
    return { pid, id: created.body.id as string };
  }

  const pairs = Object.keys(PATHS).flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => [from, to] as const));
  it.each(pairs)('%s → %s', async (from, to) => {
    const { pid, id } = await deploymentIn(from);
    const res = await move(pid, id, { status: to });
    if (ALLOWED.has(`${from}>${to}`)) {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(to);
    } else {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('invalid_transition');
      const stored = await server.repos.deployments.collection.findOne({ _id: id });
      expect(stored?.status).toBe(from);
    }
  });

  it('records started_at on building and finished_at on a final state; message and url are kept', async () => {
    const pid = await project();
    const { body: created } = await deploy(pid);
    const building = await move(pid, created.id, { status: 'building', status_message: 'npm ci' });
    expect(building.body.started_at).toMatch(/Z$/);
    expect(building.body.finished_at).toBeNull();
    expect(building.body.status_message).toBe('npm ci');
    const deploying = await move(pid, created.id, { status: 'deploying' });
    expect(deploying.body.started_at).toBe(building.body.started_at);
    expect(deploying.body.status_message).toBe('npm ci');
    const done = await move(pid, created.id, { status: 'succeeded', url: 'https://app.example.com', status_message: null });
    expect(done.body).toMatchObject({ status: 'succeeded', url: 'https://app.example.com', status_message: null, started_at: building.body.started_at });
    expect(Date.parse(done.body.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.body.started_at));
    // Reporting the same status again only updates the message.
    const again = await move(pid, created.id, { status: 'succeeded', status_message: 'healthy' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'succeeded', status_message: 'healthy', finished_at: done.body.finished_at });

    const canceled = await deploy(pid);
    const c = await move(pid, canceled.body.id, { status: 'canceled' });
    expect(c.body.started_at).toBeNull();
    expect(c.body.finished_at).toMatch(/Z$/);
  });

  it('bad PATCH bodies → 422: missing status, unknown status, non-http url, unknown field', async () => {
    const { pid, id } = await deploymentIn('queued');
    for (const body of [{}, { status: 'done' }, { status: 'building', url: 'javascript:alert(1)' }, { status: 'building', branch: 'x' }, { status: 'building', status_message: 'x'.repeat(1001) }]) {
      const res = await move(pid, id, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
    }
    expect((await server.repos.deployments.collection.findOne({ _id: id }))?.status).toBe('queued');
  });

  it('a newer success supersedes the previous one in the same environment only', async () => {
    const pid = await project();
    const succeed = async (environment: string) => {
      const { body } = await deploy(pid, { environment });
      for (const status of ['building', 'deploying', 'succeeded']) expect((await move(pid, body.id, { status })).status).toBe(200);
      return body.id as string;
    };
    const first = await succeed('production');
    const staging = await succeed('staging');
    const second = await succeed('production');
    const get = async (id: string) => (await api.get(`/v1/projects/${pid}/deployments/${id}`, { token })).body;
    expect((await get(first)).status).toBe('superseded');
    expect((await get(second)).status).toBe('succeeded');
    expect((await get(staging)).status).toBe('succeeded');
    // superseded is final.
    expect((await move(pid, first, { status: 'succeeded' })).status).toBe(409);

    // An older deployment that finishes after a newer one succeeded does not take over.
    const { body: older } = await deploy(pid);
    const { body: newer } = await deploy(pid);
    for (const status of ['building', 'deploying', 'succeeded']) await move(pid, newer.id, { status });
    for (const status of ['building', 'deploying']) await move(pid, older.id, { status });
    const late = await move(pid, older.id, { status: 'succeeded' });
    expect(late.status).toBe(200);
    expect(late.body.status).toBe('superseded');
    expect((await get(newer.id)).status).toBe('succeeded');
    const live = await server.repos.deployments.collection.countDocuments({ project_id: pid, environment: 'production', status: 'succeeded' });
    expect(live).toBe(1);
  });

  it('a paused project lets running deployments finish; an archived one refuses the write', async () => {
    const { pid, id } = await deploymentIn('building');
    await api.patch(`/v1/projects/${pid}`, { token, body: { status: 'paused' } });
    expect((await move(pid, id, { status: 'deploying' })).status).toBe(200);
    await api.patch(`/v1/projects/${pid}`, { token, body: { status: 'archived' } });
    const res = await move(pid, id, { status: 'succeeded' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('project_not_active');
  });
});

describe('list', () => {
  it('newest first, filtered by environment, status and branch, with true totals', async () => {
    const pid = await project();
    const made: { id: string; environment: string; branch: string }[] = [];
    for (const [environment, branch] of [['production', 'main'], ['staging', 'main'], ['production', 'dev'], ['staging', 'dev'], ['production', 'main']]) {
      const res = await deploy(pid, { environment, branch });
      made.push({ id: res.body.id, environment: environment!, branch: branch! });
    }
    await move(pid, made[0]!.id, { status: 'canceled' });
    const all = await api.get(`/v1/projects/${pid}/deployments`, { token });
    expect(all.body.pagination).toEqual({ page: 1, per_page: 20, total: 5 });
    expect(all.body.data.map((d: { id: string }) => d.id)).toEqual(made.map((d) => d.id).reverse());

    const prod = await api.get(`/v1/projects/${pid}/deployments?environment=production`, { token });
    expect(prod.body.data.map((d: { id: string }) => d.id)).toEqual([made[4]!.id, made[2]!.id, made[0]!.id]);
    const main = await api.get(`/v1/projects/${pid}/deployments?branch=main&environment=production&per_page=1`, { token });
    expect(main.body.pagination).toEqual({ page: 1, per_page: 1, total: 2 });
    expect(main.headers.get('link')).toContain(`${server.url}/v1/projects/${pid}/deployments?branch=main&environment=production&page=2&per_page=1>; rel="next"`);
    const canceled = await api.get(`/v1/projects/${pid}/deployments?status=canceled`, { token });
    expect(canceled.body.data.map((d: { id: string }) => d.id)).toEqual([made[0]!.id]);
    const none = await api.get(`/v1/projects/${pid}/deployments?branch=nope`, { token });
    expect(none.body).toEqual({ data: [], pagination: { page: 1, per_page: 20, total: 0 } });
  });

  it('bad filters → 400 invalid_request; operator-shaped values never reach the database', async () => {
    const pid = await project();
    await deploy(pid);
    for (const query of ['status=bogus', 'environment=UPPER', 'environment[$ne]=x', 'status[$gt]=', 'branch[$regex]=.*', 'per_page=101']) {
      const res = await api.get(`/v1/projects/${pid}/deployments?${query}`, { token });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });

  it('unknown project → 404', async () => {
    const res = await api.get('/v1/projects/proj_01m7yyc0xe4c7t8c5f3e5w1w1e/deployments', { token });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    const dep = await api.get(`/v1/projects/${await project()}/deployments/dep_01m7yyc0xe4c7t8c5f3e5w1w1e`, { token });
    expect(dep.status).toBe(404);
  });
});

describe('audit events (docs/product.md §7)', () => {
  it('project and deployment changes are recorded with the actor, never more than ids and names', async () => {
    const pid = await project();
    const { body: dep } = await deploy(pid, { environment: 'production', branch: 'main' });
    for (const status of ['building', 'deploying', 'succeeded']) await move(pid, dep.id, { status });
    const { body: next } = await deploy(pid, { environment: 'production', branch: 'main' });
    for (const status of ['building', 'deploying', 'succeeded']) await move(pid, next.id, { status });
    await api.patch(`/v1/projects/${pid}`, { token, body: { status: 'paused' } });
    expect((await api.delete(`/v1/projects/${pid}`, { token })).status).toBe(204);

    const all = await server.repos.events.collection.find({ project_id: pid }).sort({ _id: 1 }).toArray();
    // The first deployment to a name makes its environment, without rules (docs/product.md §9), in the same millisecond or so.
    expect(all.filter((e) => e.type === 'environment.created').map((e) => e.data)).toEqual([expect.objectContaining({ environment: 'production' })]);
    const events = all.filter((e) => e.type !== 'environment.created');
    const summary = events.map((e) => [e.type, (e.data as { to?: string }).to ?? null]);
    expect(summary).toEqual([
      ['project.created', null],
      ['deployment.created', null],
      ['deployment.status_changed', 'building'],
      ['deployment.status_changed', 'deploying'],
      ['deployment.status_changed', 'succeeded'],
      ['deployment.created', null],
      ['deployment.status_changed', 'building'],
      ['deployment.status_changed', 'deploying'],
      ['deployment.status_changed', 'succeeded'],
      ['deployment.status_changed', 'superseded'],
      ['project.updated', null],
      ['project.deleted', null],
    ]);
    for (const e of events) expect(e.actor).toEqual({ type: 'user', id: owner.id });
    expect(events[9]!.data).toMatchObject({ deployment_id: dep.id, from: 'succeeded', to: 'superseded', superseded_by: next.id });
    expect(events[10]!.data).toEqual({ changes: { status: { from: 'active', to: 'paused' } } });
  });
});
