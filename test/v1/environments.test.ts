import { beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/repositories/index.ts';
import type { Api } from '../support/api.ts';
import { race } from '../support/concurrency.ts';
import { createProject, expectRefused, useApiServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/** docs/product.md §9: environments, protection rules, approvals, locks, freezes, serial, rollback, the released configuration. */

const env = useApiServer();
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, token: string;
/** Two admins of the owner's account (reviewers when an environment names none) and a developer. */
let alice: TestUser, bob: TestUser, dev: TestUser;
let aliceToken: string, bobToken: string, devToken: string;
beforeAll(async () => {
  ({ server, api, tokens, owner, adminToken: token } = env);
  [alice, bob, dev] = await Promise.all([tokens.user('admin', owner.accountId), tokens.user('admin', owner.accountId), tokens.user('developer', owner.accountId)]);
  [aliceToken, bobToken, devToken] = await Promise.all([tokens.accessToken(alice, 'admin'), tokens.accessToken(bob, 'admin'), tokens.accessToken(dev, 'write')]);
});

const project = async (): Promise<string> => (await createProject(api, token)).id;
const deploy = (pid: string, body: Record<string, unknown> = {}, as = token) =>
  api.post(`/v1/projects/${pid}/deployments`, { token: as, body: { environment: 'production', branch: 'main', ...body } });
const move = (pid: string, id: string, status: string, as = token) => api.patch(`/v1/projects/${pid}/deployments/${id}`, { token: as, body: { status } });
const environment = (pid: string, body: Record<string, unknown>, as = token) => api.post(`/v1/projects/${pid}/environments`, { token: as, body: { name: 'production', ...body } });
const review = (pid: string, id: string, decision: string, as: string) => api.post(`/v1/projects/${pid}/deployments/${id}/reviews`, { token: as, body: { decision } });
const status = async (pid: string, id: string) => (await api.get(`/v1/projects/${pid}/deployments/${id}`, { token })).body.status as string;
/** The service queues it by itself (docs/product.md §9: within 5 s). */
const queuedWithin5s = (pid: string, id: string) => waitFor(`${id} queued`, async () => (await status(pid, id)) === 'queued', 5_000, 50);
const events = (pid: string, type: string) => server.repos.events.collection.find({ project_id: pid, type }).sort({ _id: 1 }).toArray();
async function apiKey(pid: string, scopes: string[] = ['read', 'write']): Promise<string> {
  const res = await api.post(`/v1/projects/${pid}/api_keys`, { token, body: { name: 'CI', scopes } });
  expect(res.status).toBe(201);
  return res.body.key as string;
}
async function succeed(pid: string, id: string) {
  for (const step of ['building', 'deploying', 'succeeded']) expect((await move(pid, id, step)).status).toBe(200);
}

describe('environments', () => {
  it('are created with their rules (admin), read, changed field by field, and deleted; names are unique per project', async () => {
    const pid = await project();
    const created = await environment(pid, { url: 'https://shop.example.com', protection: { required_approvals: 2, branch_patterns: ['main'] }, serial: true });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^env_[0-9a-z]{26}$/),
      project_id: pid,
      name: 'production',
      url: 'https://shop.example.com',
      protection: { required_approvals: 2, reviewers: [], prevent_self_review: false, wait_timer_seconds: 0, branch_patterns: ['main'] },
      serial: true,
      cancel_superseded: false,
      lock: null,
      freeze_windows: [],
      current_deployment_id: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: created.body.created_at,
    });
    expect(created.headers.get('location')).toBe(`${server.url}/v1/projects/${pid}/environments/production`);
    expectRefused(await environment(pid, {}), 409, 'conflict');

    const patched = await api.patch(`/v1/projects/${pid}/environments/production`, { token, body: { protection: { wait_timer_seconds: 60 } } });
    expect(patched.status).toBe(200);
    expect(patched.body.protection).toEqual({ required_approvals: 2, reviewers: [], prevent_self_review: false, wait_timer_seconds: 60, branch_patterns: ['main'] });
    expect((await api.get(`/v1/projects/${pid}/environments/production`, { token })).body).toEqual(patched.body);

    expect((await api.delete(`/v1/projects/${pid}/environments/production`, { token })).status).toBe(204);
    expectRefused(await api.get(`/v1/projects/${pid}/environments/production`, { token }), 404, 'not_found');
    const types = (await server.repos.events.collection.find({ project_id: pid, type: /^environment\./ }).sort({ _id: 1 }).toArray()).map((e) => e.type);
    expect(types).toEqual(['environment.created', 'environment.updated', 'environment.deleted']);
  });

  it('rules need admin and a person or client: a developer and an API key are refused; locking needs write', async () => {
    const pid = await project();
    expectRefused(await environment(pid, {}, devToken), 403, 'forbidden');
    const key = await apiKey(pid, ['read', 'write', 'admin']);
    expectRefused(await environment(pid, {}, key), 403, 'forbidden');
    const locked = await api.post(`/v1/projects/${pid}/environments/staging/lock`, { token: key, body: { reason: 'smoke tests failing' } });
    expect(locked.status).toBe(200);
    expect(locked.body.lock).toEqual({ reason: 'smoke tests failing', locked_by: { type: 'api_key', id: expect.stringMatching(/^key_/) }, locked_at: expect.any(String) });
  });

  it('a deployment to a name without one makes it without rules, once, however many arrive at once', async () => {
    const pid = await project();
    const answers = await race(12, () => deploy(pid, { environment: 'preview-1' }));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
    expect(answers.every((a) => a.body.status === 'queued')).toBe(true);
    expect(await server.repos.environments.collection.countDocuments({ project_id: pid })).toBe(1);
    expect(await events(pid, 'environment.created')).toHaveLength(1);
    const list = await api.get(`/v1/projects/${pid}/environments`, { token });
    expect(list.body.data.map((e: { name: string; protection: unknown }) => [e.name, e.protection])).toEqual([
      ['preview-1', { required_approvals: 0, reviewers: [], prevent_self_review: false, wait_timer_seconds: 0, branch_patterns: null }],
    ]);
  });

  it('deployments made before environments existed get their environments, without rules, from the migration (not from every list)', async () => {
    const pid = await project();
    await deploy(pid, { environment: 'legacy' });
    await deploy(pid, { environment: 'legacy-2' });
    // As a database written before environments existed: deployments, no environments.
    await server.repos.environments.collection.deleteMany({ project_id: pid });
    const names = async () => (await api.get(`/v1/projects/${pid}/environments`, { token })).body.data.map((e: { name: string }) => e.name);
    expect(await names()).toEqual([]);
    const createdBefore = (await events(pid, 'environment.created')).length;
    // What the first start of this version runs once, and `slipway db migrate` every time: two at once
    // (two instances starting together), then once more.
    const db = server.running.container.database.db;
    await Promise.all([migrate(db, server.repos), migrate(db, server.repos)]);
    await migrate(db, server.repos);
    expect(await names()).toEqual(['legacy', 'legacy-2']);
    const legacy = await api.get(`/v1/projects/${pid}/environments/legacy`, { token });
    expect(legacy.status).toBe(200);
    expect(legacy.body.protection).toEqual({ required_approvals: 0, reviewers: [], prevent_self_review: false, wait_timer_seconds: 0, branch_patterns: null });
    expect(await server.repos.environments.collection.countDocuments({ project_id: pid })).toBe(2);
    expect(await events(pid, 'environment.created')).toHaveLength(createdBefore);
  });

  it('a deleted environment stays deleted while its deployments stay; the next deployment to its name makes it again', async () => {
    const pid = await project();
    expect((await deploy(pid, { environment: 'staging' })).status).toBe(201);
    expect((await api.delete(`/v1/projects/${pid}/environments/staging`, { token })).status).toBe(204);
    expect((await api.get(`/v1/projects/${pid}/environments`, { token })).body.data).toEqual([]);
    expectRefused(await api.get(`/v1/projects/${pid}/environments/staging`, { token }), 404, 'not_found');
    expect((await api.get(`/v1/projects/${pid}/deployments`, { token })).body.data).toHaveLength(1);
    expect((await deploy(pid, { environment: 'staging' })).status).toBe(201);
    expect((await api.get(`/v1/projects/${pid}/environments`, { token })).body.data.map((e: { name: string }) => e.name)).toEqual(['staging']);
  });
});

describe('approvals', () => {
  it('two approvals needed, the creator may not approve: one leaves it waiting, the second queues it by itself', async () => {
    const pid = await project();
    expect((await environment(pid, { protection: { required_approvals: 2, prevent_self_review: true } })).status).toBe(201);
    const created = await deploy(pid, {}, aliceToken);
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('waiting');
    const id = created.body.id as string;

    expectRefused(await review(pid, id, 'approve', aliceToken), 403, 'forbidden');
    const first = await review(pid, id, 'approve', bobToken);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ deployment_id: id, reviewer: { type: 'user', id: bob.id }, decision: 'approve', comment: null });
    expectRefused(await review(pid, id, 'approve', bobToken), 409, 'conflict');
    // One approval of two: no timer runs, a scheduler pass moves nothing.
    expect((await server.repos.deployments.collection.findOne({ _id: id }))!.due_at).toBeNull();
    await server.services.deployments.releaseDue();
    expect(await status(pid, id)).toBe('waiting');

    expect((await review(pid, id, 'approve', token)).status).toBe(201);
    await queuedWithin5s(pid, id);
    const reviews = await api.get(`/v1/projects/${pid}/deployments/${id}/reviews`, { token });
    expect(reviews.body.data.map((r: { reviewer: { id: string } }) => r.reviewer.id)).toEqual([bob.id, owner.id]);
    expect((await events(pid, 'deployment.waiting')).length).toBe(1);
    expect((await events(pid, 'deployment.reviewed')).length).toBe(2);
    expect((await events(pid, 'deployment.approved')).length).toBe(1);
    const moves = (await events(pid, 'deployment.status_changed')).filter((e) => e.data.from === 'waiting');
    expect(moves.map((e) => [e.data.to, e.actor])).toEqual([['queued', { type: 'system', id: 'scheduler' }]]);
  });

  it('one reject ends it as rejected; later approvals are refused', async () => {
    const pid = await project();
    await environment(pid, { protection: { required_approvals: 1 } });
    const { body } = await deploy(pid, {}, devToken);
    expect((await review(pid, body.id, 'reject', bobToken)).status).toBe(201);
    expect(await status(pid, body.id)).toBe('rejected');
    expectRefused(await review(pid, body.id, 'approve', aliceToken), 409, 'invalid_transition');
    expect(await server.services.deployments.releaseDue()).toBe(0);
    const got = (await api.get(`/v1/projects/${pid}/deployments/${body.id}`, { token })).body;
    expect(got).toMatchObject({ status: 'rejected', status_message: `Rejected by ${bob.id}.`, finished_at: expect.any(String) });
    expect(await events(pid, 'deployment.rejected')).toHaveLength(1);
  });

  it('only people review: an API key and a client get 403 forbidden; a person who is no reviewer too', async () => {
    const pid = await project();
    await environment(pid, { protection: { required_approvals: 1, reviewers: [alice.id, 'owner'] } });
    const { body } = await deploy(pid);
    expectRefused(await review(pid, body.id, 'approve', await apiKey(pid, ['read', 'write', 'admin'])), 403, 'forbidden');
    expectRefused(await review(pid, body.id, 'approve', (await tokens.forClient(owner.accountId, 'admin')).token), 403, 'forbidden');
    expectRefused(await review(pid, body.id, 'approve', bobToken), 403, 'forbidden');
    expect((await review(pid, body.id, 'approve', aliceToken)).status).toBe(201);
    await queuedWithin5s(pid, body.id);
  });

  it('a reviewer approving many times at once is counted once', async () => {
    const pid = await project();
    await environment(pid, { protection: { required_approvals: 2 } });
    const { body } = await deploy(pid);
    const answers = await race(10, () => review(pid, body.id, 'approve', aliceToken));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.error.code === 'conflict')).toHaveLength(9);
    await server.services.deployments.releaseDue();
    expect(await status(pid, body.id)).toBe('waiting');
  });

  it('a wait timer counts from the last needed approval, by the server clock', async () => {
    const pid = await project();
    await environment(pid, { protection: { required_approvals: 1, wait_timer_seconds: 600 } });
    const { body } = await deploy(pid);
    expect((await review(pid, body.id, 'approve', aliceToken)).status).toBe(201);
    server.clock.advance(599_000);
    await server.services.deployments.releaseDue();
    expect(await status(pid, body.id)).toBe('waiting');
    server.clock.advance(1_000);
    await queuedWithin5s(pid, body.id);
  });

  it('a waiting deployment can be canceled; the scheduler then leaves it alone', async () => {
    const pid = await project();
    await environment(pid, { protection: { wait_timer_seconds: 2 } });
    const { body } = await deploy(pid);
    expect((await move(pid, body.id, 'canceled')).status).toBe(200);
    expectRefused(await move(pid, body.id, 'queued'), 409, 'invalid_transition');
    server.clock.advance(2_000);
    expect(await server.services.deployments.releaseDue()).toBe(0);
    expect(await status(pid, body.id)).toBe('canceled');
  });
});

describe('branch patterns, locks, freeze windows', () => {
  it('release/* admits release/a, not release/a/b; release/** does', async () => {
    const pid = await project();
    await environment(pid, { protection: { branch_patterns: ['release/*'] } });
    expect((await deploy(pid, { branch: 'release/a' })).status).toBe(201);
    expectRefused(await deploy(pid, { branch: 'release/a/b' }), 409, 'branch_not_allowed');
    expectRefused(await deploy(pid, { branch: 'main' }), 409, 'branch_not_allowed');
    await api.patch(`/v1/projects/${pid}/environments/production`, { token, body: { protection: { branch_patterns: ['release/**'] } } });
    expect((await deploy(pid, { branch: 'release/a/b' })).status).toBe(201);
    await api.patch(`/v1/projects/${pid}/environments/production`, { token, body: { protection: { branch_patterns: null } } });
    expect((await deploy(pid, { branch: 'main' })).status).toBe(201);
  });

  it('a locked environment refuses new deployments until unlocked', async () => {
    const pid = await project();
    await deploy(pid);
    const locked = await api.post(`/v1/projects/${pid}/environments/production/lock`, { token: devToken, body: { reason: 'incident 42' } });
    expect(locked.status).toBe(200);
    const refused = await deploy(pid);
    expectRefused(refused, 409, 'environment_locked');
    expect(refused.body.error.message).toContain('incident 42');
    const unlocked = await api.delete(`/v1/projects/${pid}/environments/production/lock`, { token: devToken });
    expect(unlocked.body.lock).toBeNull();
    expect((await deploy(pid)).status).toBe(201);
    expect((await events(pid, 'environment.locked')).map((e) => e.data.reason)).toEqual(['incident 42']);
    expect(await events(pid, 'environment.unlocked')).toHaveLength(1);
  });

  it('inside a freeze window: 409 environment_frozen, unless an admin overrides with a reason, recorded in /v1/events', async () => {
    const pid = await project();
    const now = server.clock.now();
    const window = { starts_at: new Date(now - 60_000).toISOString(), ends_at: new Date(now + 3_600_000).toISOString(), reason: 'holiday freeze' };
    await environment(pid, { freeze_windows: [window, { starts_at: new Date(now + 7_200_000).toISOString(), ends_at: new Date(now + 9_000_000).toISOString(), reason: 'later' }] });
    expectRefused(await deploy(pid), 409, 'environment_frozen');
    expectRefused(await deploy(pid, { override_freeze: true, reason: 'hotfix' }, devToken), 403, 'insufficient_scope');
    expectRefused(await deploy(pid, { override_freeze: true }), 409, 'environment_frozen');
    const overridden = await deploy(pid, { override_freeze: true, reason: 'hotfix for incident 42' });
    expect(overridden.status).toBe(201);
    const audit = await api.get(`/v1/events?type=deployment.created&project_id=${pid}`, { token });
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].data.override_freeze).toEqual({ reason: 'hotfix for incident 42', window: { starts_at: window.starts_at, ends_at: window.ends_at, reason: 'holiday freeze' } });
    expect(audit.body.data[0].actor).toEqual({ type: 'user', id: owner.id });
  });
});

describe('serial environments', () => {
  it('20 concurrent moves to building of 20 deployments: exactly one wins each round', async () => {
    const pid = await project();
    await environment(pid, { serial: true });
    const created = await race(20, () => deploy(pid));
    let waiting = created.map((c) => c.body.id as string);
    for (const end of ['succeeded', 'failed', 'canceled']) {
      const answers = await race(waiting.length, (i) => move(pid, waiting[i]!, 'building'));
      const winners = waiting.filter((_, i) => answers[i]!.status === 200);
      expect(winners).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'environment_busy')).toBe(true);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(waiting.length - 1);
      if (end === 'succeeded') await succeed(pid, winners[0]!);
      else expect((await move(pid, winners[0]!, end)).status).toBe(200);
      waiting = waiting.filter((id) => id !== winners[0]);
    }
  });

  it('an environment that is not serial lets several build at once', async () => {
    const pid = await project();
    const created = await race(5, () => deploy(pid));
    const answers = await race(5, (i) => move(pid, created[i]!.body.id, 'building'));
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
  });

  it('cancel_superseded: a new deployment cancels the older waiting and queued ones, naming itself', async () => {
    const pid = await project();
    await environment(pid, { cancel_superseded: true });
    const first = (await deploy(pid)).body.id as string;
    const second = (await deploy(pid)).body.id as string;
    expect(await status(pid, first)).toBe('canceled');
    const third = (await deploy(pid)).body.id as string;
    const got = (await api.get(`/v1/projects/${pid}/deployments/${second}`, { token })).body;
    expect(got).toMatchObject({ status: 'canceled', status_message: `Superseded by ${third}.` });
    expect(await status(pid, third)).toBe('queued');
  });
});

describe('deleting a project', () => {
  it("takes its deployments' claims with it (the decision out of waiting, the approvals met, a serial slot held); another project keeps its own", async () => {
    const claimsOf = (pid: string) => server.repos.deploymentClaims.collection.countDocuments({ project_id: pid });
    const withClaims = async () => {
      const pid = await project();
      await environment(pid, { serial: true, protection: { required_approvals: 1 } });
      const id = (await deploy(pid, {}, devToken)).body.id as string;
      expect((await review(pid, id, 'approve', aliceToken)).status).toBe(201);
      await queuedWithin5s(pid, id);
      expect((await move(pid, id, 'building')).status).toBe(200);
      // Decided (out of waiting), approved, and the serial slot.
      expect(await claimsOf(pid)).toBe(3);
      return pid;
    };
    const [doomed, kept] = [await withClaims(), await withClaims()];
    expect((await api.delete(`/v1/projects/${doomed}`, { token })).status).toBe(204);
    expect(await claimsOf(doomed)).toBe(0);
    expect(await claimsOf(kept)).toBe(3);
  });
});

describe('redeploy, promote, rollback', () => {
  it('kinds and sources; rollback takes the one that succeeded before the current one, through the rules', async () => {
    const pid = await project();
    const v1 = (await deploy(pid, { branch: 'main', commit_sha: 'aaaaaaa' })).body;
    await succeed(pid, v1.id);
    const v2 = (await deploy(pid, { branch: 'main', commit_sha: 'bbbbbbb' })).body;
    await succeed(pid, v2.id);
    expect((await api.get(`/v1/projects/${pid}/environments/production`, { token })).body.current_deployment_id).toBe(v2.id);

    const redeploy = await api.post(`/v1/projects/${pid}/deployments/${v2.id}/redeploy`, { token, body: {} });
    expect(redeploy.status).toBe(201);
    expect(redeploy.body).toMatchObject({ kind: 'redeploy', source_deployment_id: v2.id, environment: 'production', branch: 'main', commit_sha: 'bbbbbbb', status: 'queued' });
    const promote = await api.post(`/v1/projects/${pid}/deployments/${v2.id}/redeploy`, { token, body: { environment: 'staging' } });
    expect(promote.body).toMatchObject({ kind: 'promote', source_deployment_id: v2.id, environment: 'staging', commit_sha: 'bbbbbbb' });

    const rollback = await api.post(`/v1/projects/${pid}/environments/production/rollback`, { token, body: {} });
    expect(rollback.status).toBe(201);
    expect(rollback.body).toMatchObject({ kind: 'rollback', source_deployment_id: v1.id, commit_sha: 'aaaaaaa', environment: 'production' });
    const named = await api.post(`/v1/projects/${pid}/environments/production/rollback`, { token, body: { deployment_id: v2.id } });
    expect(named.body).toMatchObject({ kind: 'rollback', source_deployment_id: v2.id });
    expectRefused(await api.post(`/v1/projects/${pid}/environments/production/rollback`, { token, body: { deployment_id: promote.body.id } }), 409, 'conflict');

    await api.post(`/v1/projects/${pid}/environments/production/lock`, { token, body: { reason: 'frozen by hand' } });
    expectRefused(await api.post(`/v1/projects/${pid}/environments/production/rollback`, { token, body: {} }), 409, 'environment_locked');
    await api.patch(`/v1/projects/${pid}/environments/staging`, { token, body: { protection: { required_approvals: 1 } } });
    const gated = await api.post(`/v1/projects/${pid}/deployments/${v1.id}/redeploy`, { token, body: { environment: 'staging' } });
    expect(gated.body).toMatchObject({ kind: 'promote', status: 'waiting' });
  });

  it('nothing to roll back to → 409 conflict', async () => {
    const pid = await project();
    const only = (await deploy(pid)).body;
    await succeed(pid, only.id);
    expectRefused(await api.post(`/v1/projects/${pid}/environments/production/rollback`, { token, body: {} }), 409, 'conflict');
  });
});

describe('the configuration a deployment runs with', () => {
  it('to its creating key or an admin, secrets revealed, only while active; released as an event without values', async () => {
    const pid = await project();
    const set = (environment: string, key: string, value: string, secret = false) =>
      api.post(`/v1/projects/${pid}/configurations`, { token, body: { environment, key, value, secret } });
    await set('production', 'API_URL', 'https://api.example.com');
    await set('production', 'DB_PASSWORD', 's3cret-value-42', true);
    await set('staging', 'API_URL', 'https://staging.example.com');
    const key = await apiKey(pid);
    const { body: dep } = await deploy(pid, {}, key);

    const released = await api.get(`/v1/projects/${pid}/deployments/${dep.id}/configuration`, { token: key });
    expect(released.status).toBe(200);
    expect(released.body).toEqual({
      deployment_id: dep.id,
      environment: 'production',
      variables: [
        { key: 'API_URL', value: 'https://api.example.com', secret: false },
        { key: 'DB_PASSWORD', value: 's3cret-value-42', secret: true },
      ],
    });
    expect((await api.get(`/v1/projects/${pid}/deployments/${dep.id}/configuration`, { token })).status).toBe(200);
    expectRefused(await api.get(`/v1/projects/${pid}/deployments/${dep.id}/configuration`, { token: devToken }), 403, 'forbidden');
    expectRefused(await api.get(`/v1/projects/${pid}/deployments/${dep.id}/configuration`, { token: await apiKey(pid) }), 403, 'forbidden');
    const otherKey = await apiKey(await project());
    expectRefused(await api.get(`/v1/projects/${pid}/deployments/${dep.id}/configuration`, { token: otherKey }), 404, 'not_found');

    const releases = await events(pid, 'configuration.released');
    expect(releases).toHaveLength(2);
    expect(releases[0]!.data).toEqual({ deployment_id: dep.id, environment: 'production', keys: ['API_URL', 'DB_PASSWORD'] });
    expect(JSON.stringify(releases)).not.toContain('s3cret-value-42');

    await succeed(pid, dep.id);
    expectRefused(await api.get(`/v1/projects/${pid}/deployments/${dep.id}/configuration`, { token: key }), 409, 'deployment_not_active');
    await api.patch(`/v1/projects/${pid}/environments/production`, { token, body: { protection: { required_approvals: 1 } } });
    const { body: waiting } = await deploy(pid, {}, key);
    expectRefused(await api.get(`/v1/projects/${pid}/deployments/${waiting.id}/configuration`, { token: key }), 409, 'deployment_not_active');
  });
});
