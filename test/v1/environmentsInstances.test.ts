import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../support/api.ts';
import { race } from '../support/concurrency.ts';
import { createProject, useTwoInstances } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import { startAnotherInstance, startTestServer, type TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';

/**
 * docs/product.md §9 across instances: the scheduler moves each due deployment once however many
 * instances run it, and also when the instance that accepted it is gone; a serial environment's slot,
 * a reviewer's one review and an environment made by its first deployment are each decided once.
 */

interface Side {
  server: TestServer;
  api: Api;
}

/** An owner of a fresh account on `server`, signed in with the admin scope, and a checking client per instance. */
async function signIn(first: TestServer, others: TestServer[] = []) {
  const tokens = new Tokens(first);
  const owner = await tokens.user('owner');
  const token = await tokens.accessToken(owner, 'admin');
  const sides: Side[] = await Promise.all([first, ...others].map(async (server) => ({ server, api: await Api.connect(server.url) })));
  return { tokens, owner, token, sides };
}

const deploy = (side: Side, token: string, pid: string, body: Record<string, unknown> = {}) =>
  side.api.post(`/v1/projects/${pid}/deployments`, { token, body: { environment: 'production', branch: 'main', ...body } });
const statusOn = async (side: Side, token: string, pid: string, id: string) => (await side.api.get(`/v1/projects/${pid}/deployments/${id}`, { token })).body.status as string;
const queuedWithin5s = (side: Side, token: string, pid: string, id: string) =>
  waitFor(`${id} queued`, async () => (await statusOn(side, token, pid, id)) === 'queued', 5_000, 50);
const timer = (side: Side, token: string, pid: string, seconds: number) =>
  side.api.post(`/v1/projects/${pid}/environments`, { token, body: { name: 'production', protection: { wait_timer_seconds: seconds } } });

describe('on two running instances', () => {
  const two = useTwoInstances();
  let sides: Side[], token: string, owner: TestUser, tokens: Tokens;
  beforeAll(async () => {
    ({ sides, token, owner, tokens } = await signIn(two.first, [two.second]));
  });

  it('the scheduler queues each due deployment exactly once', async () => {
    const pid = (await createProject(sides[0]!.api, token)).id as string;
    expect((await timer(sides[0]!, token, pid, 2)).status).toBe(201);
    const created = await race(10, (i) => deploy(sides[i % 2]!, token, pid));
    expect(created.every((c) => c.status === 201 && c.body.status === 'waiting')).toBe(true);
    two.first.clock.advance(2_000);
    for (const c of created) await queuedWithin5s(sides[1]!, token, pid, c.body.id);
    // Both instances' schedulers and a few more passes at once: nothing moves twice.
    await race(6, (i) => sides[i % 2]!.server.services.deployments.releaseDue());
    const moves = await two.first.repos.events.collection.find({ project_id: pid, type: 'deployment.status_changed', 'data.from': 'waiting' }).toArray();
    expect(moves.map((e) => e.data.deployment_id).sort()).toEqual(created.map((c) => c.body.id).sort());
  });

  it('a serial environment: 20 concurrent moves to building over both instances, one wins each round', async () => {
    const pid = (await createProject(sides[0]!.api, token)).id as string;
    await sides[0]!.api.post(`/v1/projects/${pid}/environments`, { token, body: { name: 'production', serial: true } });
    let ids = (await race(20, (i) => deploy(sides[i % 2]!, token, pid))).map((c) => c.body.id as string);
    for (let round = 0; round < 3; round++) {
      const answers = await race(ids.length, (i) => sides[i % 2]!.api.patch(`/v1/projects/${pid}/deployments/${ids[i]}`, { token, body: { status: 'building' } }));
      const winners = ids.filter((_, i) => answers[i]!.status === 200);
      expect(winners).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409 && a.body.error.code === 'environment_busy')).toHaveLength(ids.length - 1);
      const done = await sides[round % 2]!.api.patch(`/v1/projects/${pid}/deployments/${winners[0]}`, { token, body: { status: 'failed' } });
      expect(done.status).toBe(200);
      ids = ids.filter((id) => id !== winners[0]);
    }
  });

  it('the first deployments to a new name, over both instances, make one environment', async () => {
    const pid = (await createProject(sides[0]!.api, token)).id as string;
    const answers = await race(12, (i) => deploy(sides[i % 2]!, token, pid, { environment: 'preview-7' }));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
    expect(await two.first.repos.environments.collection.countDocuments({ project_id: pid })).toBe(1);
    expect(await two.first.repos.events.collection.countDocuments({ project_id: pid, type: 'environment.created' })).toBe(1);
  });

  it('a reviewer approving many times over both instances is counted once', async () => {
    const pid = (await createProject(sides[0]!.api, token)).id as string;
    await sides[0]!.api.post(`/v1/projects/${pid}/environments`, { token, body: { name: 'production', protection: { required_approvals: 2 } } });
    const { body } = await deploy(sides[0]!, token, pid);
    const reviewer = await tokens.user('admin', owner.accountId);
    const reviewerToken = await tokens.accessToken(reviewer, 'write');
    const answers = await race(10, (i) => sides[i % 2]!.api.post(`/v1/projects/${pid}/deployments/${body.id}/reviews`, { token: reviewerToken, body: { decision: 'approve' } }));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9);
    expect(await two.first.repos.deploymentReviews.collection.countDocuments({ deployment_id: body.id })).toBe(1);
  });
});

describe('when instances stop', () => {
  const started: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  it('a 2 s wait timer moves the deployment although the instance that accepted it was stopped meanwhile', async () => {
    const first = await startTestServer();
    started.push(first);
    const second = await startAnotherInstance(first);
    started.push(second);
    const { token, sides } = await signIn(first, [second]);
    const pid = (await createProject(sides[0]!.api, token)).id as string;
    await timer(sides[0]!, token, pid, 2);
    const { body } = await deploy(sides[0]!, token, pid);
    expect(body.status).toBe('waiting');
    await first.stop();
    first.clock.advance(2_000);
    await queuedWithin5s(sides[1]!, token, pid, body.id);
  });

  it('a timer that ran out while every instance was down moves when one comes back', async () => {
    const server = await startTestServer();
    started.push(server);
    const { token, sides } = await signIn(server);
    const pid = (await createProject(sides[0]!.api, token)).id as string;
    await timer(sides[0]!, token, pid, 2);
    const { body } = await deploy(sides[0]!, token, pid);
    await server.stop();
    server.clock.advance(60_000);
    const back = await server.restart();
    started.push(back);
    await queuedWithin5s({ server: back, api: await Api.connect(back.url) }, token, pid, body.id);
  });
});
