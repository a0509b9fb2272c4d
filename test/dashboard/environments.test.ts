import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal, type Principal, type Role } from '../../src/domain/principal.ts';
import { makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';

/**
 * docs/product.md §9 on the dashboard, over plain HTTP as a browser posts forms: a project's
 * environments with the pending reviews (Approve, Reject), an environment's page (current deployment,
 * history, lock, roll back), the reviews on a deployment's page.
 */
const server = useTestServer();
let accountId: string;
let operator: Principal;
let ownerName: string;
const signedIn = new Map<Role, { cookie: string; csrf: string }>();

beforeAll(async () => {
  const owner = await makeUser(server, { role: 'owner', name: 'Rhea Reviewer' });
  ownerName = owner.name;
  accountId = owner.account_id;
  operator = systemPrincipal(accountId);
  for (const role of ['owner', 'viewer'] as const) {
    const user = role === 'owner' ? owner : await makeUser(server, { role, account_id: accountId });
    const { token, session } = await server.running.container.sessions.create(user._id, accountId);
    signedIn.set(role, { cookie: `slipway_session=${token}`, csrf: session.csrf_token });
  }
});

async function get(role: Role, pathname: string) {
  const response = await fetch(`${server.url}${pathname}`, { redirect: 'manual', headers: { cookie: signedIn.get(role)!.cookie } });
  return { status: response.status, text: await response.text() };
}

async function post(role: Role, pathname: string, fields: Record<string, string> = {}) {
  const body = new URLSearchParams({ _csrf: signedIn.get(role)!.csrf, ...fields });
  const response = await fetch(`${server.url}${pathname}`, { method: 'POST', redirect: 'manual', headers: { cookie: signedIn.get(role)!.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body });
  return { status: response.status, location: response.headers.get('location') };
}

async function projectWithRules(protection: Record<string, unknown>) {
  const { services } = server;
  const project = await services.projects.create(operator, { name: `Env page ${randomBytes(3).toString('hex')}`, deploy_target: null });
  await services.environments.create(operator, project._id, { name: 'production', protection });
  return project._id;
}

const deploy = (projectId: string) => server.services.deployments.create(operator, projectId, { environment: 'production', branch: 'main', commit_sha: null });

describe('environments on the dashboard', () => {
  it('pending reviews are listed with Approve and Reject; approving queues the deployment', async () => {
    const pid = await projectWithRules({ required_approvals: 1 });
    const waiting = await deploy(pid);
    const page = await get('owner', `/dashboard/projects/${pid}/environments`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Pending reviews');
    expect(page.text).toContain(waiting._id);
    expect(page.text).toContain(`action="/dashboard/projects/${pid}/deployments/${waiting._id}/review"`);
    expect(page.text).toMatch(/>Approve<\/button>[\s\S]*>Reject<\/button>/);

    expect((await post('viewer', `/dashboard/projects/${pid}/deployments/${waiting._id}/review`, { decision: 'approve' })).status).toBe(403);
    const approved = await post('owner', `/dashboard/projects/${pid}/deployments/${waiting._id}/review`, { decision: 'approve', return: 'environments' });
    expect(approved).toEqual({ status: 303, location: `/dashboard/projects/${pid}/environments` });
    await waitFor('queued', async () => (await server.services.deployments.get(operator, pid, waiting._id)).status === 'queued', 5_000, 50);
  });

  it('a deployment page shows its reviews; Reject ends it', async () => {
    const pid = await projectWithRules({ required_approvals: 2 });
    const waiting = await deploy(pid);
    const before = await get('owner', `/dashboard/projects/${pid}/deployments/${waiting._id}`);
    expect(before.text).toContain('No review yet.');
    expect(before.text).toContain('>Reject</button>');
    const rejected = await post('owner', `/dashboard/projects/${pid}/deployments/${waiting._id}/review`, { decision: 'reject', return: 'deployment' });
    expect(rejected).toEqual({ status: 303, location: `/dashboard/projects/${pid}/deployments/${waiting._id}` });
    const after = await get('owner', `/dashboard/projects/${pid}/deployments/${waiting._id}`);
    expect(after.text).not.toContain('>Reject</button>');
    // The review, by the reviewer's name (not an id).
    expect(after.text).toMatch(new RegExp(`rejected</span> <span class="actor">${ownerName}</span>`));
    expect((await server.services.deployments.get(operator, pid, waiting._id)).status).toBe('rejected');
  });

  it('an environment page: current deployment, history, lock and unlock, roll back', async () => {
    const pid = await projectWithRules({});
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const d = await deploy(pid);
      for (const status of ['building', 'deploying', 'succeeded'] as const) await server.services.deployments.updateStatus(operator, pid, d._id, { status });
      ids.push(d._id);
    }
    const page = await get('owner', `/dashboard/projects/${pid}/environments/production`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(new RegExp(`<dt>Live</dt><dd><a href="/dashboard/projects/${pid}/deployments/${ids[1]}">`));
    for (const id of ids) expect(page.text).toContain(id);

    expect(await post('owner', `/dashboard/projects/${pid}/environments/production/lock`, { reason: 'release freeze' })).toEqual({ status: 303, location: `/dashboard/projects/${pid}/environments/production` });
    expect((await server.services.environments.get(operator, pid, 'production')).lock?.reason).toBe('release freeze');
    expect((await get('owner', `/dashboard/projects/${pid}/environments/production`)).text).toContain('release freeze');
    // Locked: a rollback is refused, back on the page with a message.
    expect((await post('owner', `/dashboard/projects/${pid}/environments/production/rollback`)).location).toBe(`/dashboard/projects/${pid}/environments/production`);
    expect((await post('owner', `/dashboard/projects/${pid}/environments/production/unlock`)).status).toBe(303);
    expect((await server.services.environments.get(operator, pid, 'production')).lock).toBeNull();

    const rolled = await post('owner', `/dashboard/projects/${pid}/environments/production/rollback`);
    expect(rolled.status).toBe(303);
    const newId = /\/deployments\/(dep_[0-9a-z]+)$/.exec(rolled.location ?? '')?.[1];
    expect(newId).toBeTruthy();
    expect(await server.services.deployments.get(operator, pid, newId!)).toMatchObject({ kind: 'rollback', source_deployment_id: ids[0] });
    expect((await post('viewer', `/dashboard/projects/${pid}/environments/production/lock`, { reason: 'no' })).status).toBe(403);
  });
});
