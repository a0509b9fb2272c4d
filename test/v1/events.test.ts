import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { useApiServer } from '../support/fixtures.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/** The audit log (docs/product.md §7): every change recorded, newest first, filtered by type and project. */

const env = useApiServer();
let api: Api, tokens: Tokens, owner: TestUser, admin: string;
beforeAll(() => ({ api, tokens, owner, adminToken: admin } = env));

describe('GET /v1/events', () => {
  it('records project, deployment, configuration and API key changes with their actor, newest first', async () => {
    const project = (await api.post('/v1/projects', { token: admin, body: { name: `audited-${Date.now()}` } })).body.id;
    const key = await api.post(`/v1/projects/${project}/api_keys`, { token: admin, body: { name: 'ci', scopes: ['write'] } });
    const deployment = await api.post(`/v1/projects/${project}/deployments`, { token: key.body.key, body: { environment: 'production', branch: 'main' } });
    await api.patch(`/v1/projects/${project}/deployments/${deployment.body.id}`, { token: key.body.key, body: { status: 'building' } });
    const config = await api.post(`/v1/projects/${project}/configurations`, { token: admin, body: { environment: 'production', key: 'TOKEN', value: 'hidden-value-1234', secret: true } });
    await api.patch(`/v1/projects/${project}/configurations/${config.body.id}`, { token: admin, body: { value: 'hidden-value-5678' } });
    await api.patch(`/v1/projects/${project}`, { token: admin, body: { status: 'paused' } });

    const res = await api.get(`/v1/events?project_id=${project}`, { token: admin });
    expect(res.status).toBe(200);
    // The first deployment to a name makes its environment (docs/product.md §9), within the same millisecond or so.
    expect(res.body.data.filter((e: { type: string }) => e.type === 'environment.created')).toHaveLength(1);
    res.body.data = res.body.data.filter((e: { type: string }) => e.type !== 'environment.created');
    expect(res.body.data.map((e: { type: string }) => e.type)).toEqual([
      'project.updated',
      'configuration.updated',
      'configuration.created',
      'deployment.status_changed',
      'deployment.created',
      'api_key.created',
      'project.created',
    ]);
    const [updated, , , statusChanged, , , created] = res.body.data;
    expect(created).toMatchObject({ actor: { type: 'user', id: owner.id }, project_id: project, data: { name: expect.stringMatching(/^audited-/) } });
    expect(statusChanged).toMatchObject({ actor: { type: 'api_key', id: key.body.id }, data: { deployment_id: deployment.body.id, from: 'queued', to: 'building' } });
    expect(updated.data).toMatchObject({ changes: { status: { from: 'active', to: 'paused' } } });
    expect(res.text).not.toContain('hidden-value');
    expect(res.text).not.toContain(key.body.key);

    const byType = await api.get(`/v1/events?type=deployment.created&project_id=${project}`, { token: admin });
    expect(byType.body.data).toHaveLength(1);
    expect(byType.body.pagination.total).toBe(1);
    const paged = await api.get(`/v1/events?project_id=${project}&per_page=2&page=2`, { token: admin });
    expect(paged.body.data.map((e: { type: string }) => e.type)).toEqual(['configuration.created', 'deployment.status_changed']);
    expect(paged.headers.get('link')).toContain(`project_id=${project}`);

    await api.delete(`/v1/projects/${project}`, { token: admin });
    const deleted = await api.get(`/v1/events?type=project.deleted&project_id=${project}`, { token: admin });
    expect(deleted.body.data).toHaveLength(1);
  });

  it("shows only the caller's account; refuses unknown filters (400)", async () => {
    const stranger = await tokens.user('owner');
    const theirs = await tokens.accessToken(stranger, 'admin');
    const project = (await api.post('/v1/projects', { token: theirs, body: { name: `elsewhere-${Date.now()}` } })).body.id;
    expect((await api.get(`/v1/events?project_id=${project}`, { token: admin })).body.data).toEqual([]);
    expect((await api.get(`/v1/events?project_id=${project}`, { token: theirs })).body.data).toHaveLength(1);
    for (const query of ['type=project.exploded', 'project_id=nope', 'actor=me']) {
      const res = await api.get(`/v1/events?${query}`, { token: admin });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });
});
