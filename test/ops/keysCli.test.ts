import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { dumpDatabase } from '../support/database.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import { runCli } from '../support/cli.ts';
import type { TestServer } from '../support/server.ts';

/** `slipway keys create`: the operator's way to make a project API key, printed once. */

const env = useApiServer();
let server: TestServer, api: Api;
let projectId: string;

/** The CLI exactly as an operator runs it, on the running server's database and keys. */
const slipway = async (...args: string[]) => await runCli(server.config, args);

beforeAll(async () => {
  ({ server, api } = env);
  projectId = (await createProject(api, env.adminToken, { name: 'cli-keys' })).id;
});

describe('slipway keys create', () => {
  it('creates a key for the project, prints it once (JSON), and the key works on /v1 with its scopes', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const result = await slipway('keys', 'create', '--project', projectId, '--name', 'CI deploy', '--scopes', 'read,write', '--expires-at', expiresAt, '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, string>;
    expect(printed).toMatchObject({
      id: expect.stringMatching(/^key_/),
      name: 'CI deploy',
      project_id: projectId,
      scopes: ['read', 'write'],
      status: 'active',
      created_by: { type: 'system', id: 'cli' },
      expires_at: expiresAt,
      key: expect.stringMatching(/^slw_[0-9A-Za-z]{38}$/),
    });
    const key = printed.key!;
    expect((await api.get(`/v1/projects/${projectId}`, { token: key })).status).toBe(200);
    expect((await api.post(`/v1/projects/${projectId}/deployments`, { token: key, body: { environment: 'production', branch: 'main' } })).status).toBe(201);
    expect((await api.delete(`/v1/projects/${projectId}`, { token: key })).body.error.code).toBe('insufficient_scope');
    expect(await dumpDatabase(server.running.container.database.db)).not.toContain(key);
  });

  it('prints the key in text mode too, with the warning that it is not shown again', async () => {
    const result = await slipway('keys', 'create', '--project', projectId, '--name', 'read only', '--scopes', 'read');
    expect(result.code).toBe(0);
    const key = /key: (slw_[0-9A-Za-z]{38})/.exec(result.stdout)?.[1];
    expect(key).toBeTruthy();
    expect(result.stdout).toMatch(/not shown again/);
    expect((await api.get(`/v1/projects/${projectId}`, { token: key! })).status).toBe(200);
  });

  it('refuses an unknown project (exit 1) and bad or missing flags, all at once (exit 2), creating nothing', async () => {
    const before = await server.repos.apiKeys.collection.countDocuments({});
    const unknown = await slipway('keys', 'create', '--project', 'proj_01jd8x3k9q7m2v4t6r8w0y1z3b', '--name', 'x', '--scopes', 'read');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No such project/);
    const bad = await slipway('keys', 'create', '--scopes', 'read,root', '--expires-at', 'yesterday');
    expect(bad.code).toBe(2);
    for (const flag of ['--project', '--name', '--scopes', '--expires-at']) expect(bad.stderr).toContain(`  - ${flag}:`);
    expect(await server.repos.apiKeys.collection.countDocuments({})).toBe(before);
  });
});
