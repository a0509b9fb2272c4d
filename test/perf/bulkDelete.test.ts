import { beforeAll, describe, expect, it } from 'vitest';
import { commandsDuring } from '../support/commands.ts';
import { blankEnvironment } from '../../src/repositories/environments.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';

/**
 * A project with 100,000 deployments. Reading it costs what a small project costs (no read grows with
 * the deployments), and deleting it works: every bulk delete goes through deleteInBatches, since a plain
 * deleteMany past ~32,000 matches fails on the embedded database ("too many SQL variables").
 */
// Background work (the scheduler's poll) slowed down, so that what is counted is the requests' own commands.
const env = useApiServer({ overrides: { schedulerIntervalMs: 60_000, webhookPollIntervalMs: 60_000, sweepIntervalSeconds: 3600 } });
const DEPLOYMENTS = 100_000;
/** Past the embedded database's ~32,000 variables of one statement: configurations and log chunks. */
const MANY = 33_000;
/** Environments and reviews: as many as a busy project might have (their deletion is the same batched delete). */
const SOME = 2_000;

let doomed: { id: string }, kept: { id: string }, keptDeploymentId: string;
const chunk = <T>(count: number, make: (i: number) => T, size = 11_000): T[][] =>
  Array.from({ length: Math.ceil(count / size) }, (_, c) => Array.from({ length: Math.min(size, count - c * size) }, (_, i) => make(c * size + i)));

beforeAll(async () => {
  const { api, adminToken } = env;
  doomed = await createProject(api, adminToken);
  kept = await createProject(api, adminToken);
  const first = await api.post(`/v1/projects/${doomed.id}/deployments`, { token: adminToken, body: { environment: 'production', branch: 'main' } });
  expect(first.status).toBe(201);
  const keptDeployment = await api.post(`/v1/projects/${kept.id}/deployments`, { token: adminToken, body: { environment: 'production', branch: 'main' } });
  expect(keptDeployment.status).toBe(201);
  keptDeploymentId = keptDeployment.body.id as string;

  const { repos } = env.server;
  const deployments = repos.deployments.collection;
  const template = (await deployments.findOne({ _id: first.body.id }))!;
  for (const batch of chunk(DEPLOYMENTS - 1, (i) => ({ ...template, _id: `dep_bulk${String(i + 1).padStart(12, '0')}` }), 10_000)) await deployments.insertMany(batch);
  const owner = { account_id: template.account_id, project_id: template.project_id };
  const configurations = env.server.running.container.database.db.collection<{ _id: string; account_id: string; project_id: string; environment: string; key: string }>('configurations');
  for (const batch of chunk(MANY, (i) => ({ _id: `cfg_bulk${String(i).padStart(12, '0')}`, ...owner, environment: 'production', key: `KEY_${i}` }))) await configurations.insertMany(batch);
  const now = new Date();
  for (const batch of chunk(SOME, (i) => blankEnvironment({ _id: template.project_id, account_id: template.account_id }, `preview-${i}`, now)))
    await repos.environments.collection.insertMany(batch);
  for (const batch of chunk(MANY, (i) => ({
    _id: `dep_bulk${String(i + 1).padStart(12, '0')}:000000000001`, ...owner, deployment_id: `dep_bulk${String(i + 1).padStart(12, '0')}`,
    first_seq: 1, last_seq: 1, total_bytes: 5, batch_id: null, cut: false, lines: [{ s: 'stdout' as const, t: 'hello', ts: now }], deployment_created_at: now, created_at: now,
  }))) await repos.deploymentLogs.collection.insertMany(batch);
  for (const batch of chunk(SOME, (i) => ({
    _id: `dep_bulk${String(i + 1).padStart(12, '0')}:usr_bulk`, review_id: `rev_bulk${String(i).padStart(12, '0')}`, ...owner, deployment_id: `dep_bulk${String(i + 1).padStart(12, '0')}`,
    reviewer: { type: 'user' as const, id: 'usr_bulk' }, decision: 'approve' as const, comment: null, created_at: now,
  }))) await repos.deploymentReviews.collection.insertMany(batch);
  expect(await deployments.countDocuments({ project_id: doomed.id })).toBe(DEPLOYMENTS);
}, 300_000);

/** The database commands `request` sends, in order: `find environments`, and each command's body. */
async function commandsOf(request: () => Promise<unknown>): Promise<{ name: string; body: Record<string, unknown> }[]> {
  const bodies: Record<string, unknown>[] = [];
  const names = await commandsDuring(env.server.running.container.database.client, request, bodies);
  return names.map((name, i) => ({ name, body: bodies[i]! }));
}

/** What a request reads of the deployments: each command must be a find of one document (an index seek), never a scan or a distinct. */
function deploymentReads(commands: { name: string; body: Record<string, unknown> }[]): string[] {
  const reads = commands.filter((c) => c.name.endsWith(' deployments'));
  for (const read of reads) expect({ command: read.name, limit: read.body.limit }, JSON.stringify(read.body)).toEqual({ command: 'find deployments', limit: 1 });
  return reads.map((c) => c.name);
}

describe('a project with 100,000 deployments', () => {
  it('lists its environments and reads one with the same database commands as a project with one deployment', async () => {
    const { api, adminToken } = env;
    const listFirstPage = (pid: string) => async () => {
      const res = await api.get(`/v1/projects/${pid}/environments?per_page=1`, { token: adminToken });
      expect(res.status).toBe(200);
      expect(res.body.data.map((e: { name: string }) => e.name)).toEqual(pid === doomed.id ? ['preview-0'] : ['production']);
    };
    const readProduction = (pid: string) => async () => {
      const res = await api.get(`/v1/projects/${pid}/environments/production`, { token: adminToken });
      expect(res.status).toBe(200);
      expect(res.body.current_deployment_id).toBeNull();
    };
    // Once first, as on a running server (caches filled); background work may add a command to one of them.
    for (const pid of [doomed.id, kept.id]) await listFirstPage(pid)();
    const bigList = await commandsOf(listFirstPage(doomed.id));
    const smallList = await commandsOf(listFirstPage(kept.id));
    expect(deploymentReads(bigList)).toEqual(deploymentReads(smallList));
    expect(bigList.map((c) => c.name)).toEqual(smallList.map((c) => c.name));
    const bigRead = await commandsOf(readProduction(doomed.id));
    const smallRead = await commandsOf(readProduction(kept.id));
    expect(deploymentReads(bigRead)).toEqual(deploymentReads(smallRead));
    expect(bigRead.map((c) => c.name)).toEqual(smallRead.map((c) => c.name));
  });

  it('deleting it answers 204 and leaves none of its deployments, configurations, environments, logs or reviews behind; another project keeps its own', { timeout: 300_000 }, async () => {
    const { api, adminToken } = env;
    const { repos } = env.server;
    const res = await api.delete(`/v1/projects/${doomed.id}`, { token: adminToken });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(await repos.deployments.collection.countDocuments({ project_id: doomed.id })).toBe(0);
    expect(await env.server.running.container.database.db.collection('configurations').countDocuments({ project_id: doomed.id })).toBe(0);
    expect(await repos.environments.collection.countDocuments({ project_id: doomed.id })).toBe(0);
    expect(await repos.deploymentLogs.collection.countDocuments({ project_id: doomed.id })).toBe(0);
    expect(await repos.deploymentReviews.collection.countDocuments({ project_id: doomed.id })).toBe(0);
    expect(await repos.deployments.collection.countDocuments({ project_id: kept.id })).toBe(1);
    expect(await repos.environments.collection.countDocuments({ project_id: kept.id })).toBe(1);
    expect((await api.get(`/v1/projects/${kept.id}/deployments/${keptDeploymentId}`, { token: adminToken })).status).toBe(200);
  });
});
