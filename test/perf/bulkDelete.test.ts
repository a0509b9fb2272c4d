import { describe, expect, it } from 'vitest';
import { createProject, useApiServer } from '../support/fixtures.ts';

/**
 * Every bulk delete goes through deleteInBatches: a plain deleteMany past ~32,000 matches fails on the
 * embedded database ("too many SQL variables"), so a large project could never be deleted.
 */
const env = useApiServer();
const DEPLOYMENTS = 100_000;
const CONFIGURATIONS = 33_000;

describe('deleting a project with 100,000 deployments', () => {
  it('answers 204 and leaves none of its deployments or configurations behind; another project keeps its own', { timeout: 300_000 }, async () => {
    const { api, adminToken } = env;
    const doomed = await createProject(api, adminToken);
    const kept = await createProject(api, adminToken);
    const first = await api.post(`/v1/projects/${doomed.id}/deployments`, { token: adminToken, body: { environment: 'production', branch: 'main' } });
    expect(first.status).toBe(201);
    const keptDeployment = await api.post(`/v1/projects/${kept.id}/deployments`, { token: adminToken, body: { environment: 'production', branch: 'main' } });
    expect(keptDeployment.status).toBe(201);

    const deployments = env.server.repos.deployments.collection;
    const template = (await deployments.findOne({ _id: first.body.id }))!;
    for (let start = 1; start < DEPLOYMENTS; start += 10_000) {
      const count = Math.min(10_000, DEPLOYMENTS - start);
      await deployments.insertMany(Array.from({ length: count }, (_, i) => ({ ...template, _id: `dep_bulk${String(start + i).padStart(12, '0')}` })));
    }
    const configurations = env.server.running.container.database.db.collection<{ _id: string; account_id: string; project_id: string; environment: string; key: string }>('configurations');
    for (let start = 0; start < CONFIGURATIONS; start += 11_000) {
      await configurations.insertMany(Array.from({ length: 11_000 }, (_, i) => ({ _id: `cfg_bulk${String(start + i).padStart(12, '0')}`, account_id: template.account_id, project_id: template.project_id, environment: 'production', key: `KEY_${start + i}` })));
    }
    expect(await deployments.countDocuments({ project_id: doomed.id })).toBe(DEPLOYMENTS);

    const res = await api.delete(`/v1/projects/${doomed.id}`, { token: adminToken });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(await deployments.countDocuments({ project_id: doomed.id })).toBe(0);
    expect(await configurations.countDocuments({ project_id: doomed.id })).toBe(0);
    expect(await deployments.countDocuments({ project_id: kept.id })).toBe(1);
    expect((await api.get(`/v1/projects/${kept.id}/deployments/${keptDeployment.body.id}`, { token: adminToken })).status).toBe(200);
  });
});
