import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/domain/principal.ts';
import { makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';
import { v1 } from './support.ts';

/**
 * Settings › Trusted CI (docs/product.md §13): a project's trust policies made and deleted from the
 * dashboard through the same service and schema as /v1, admins only, with snippets for GitHub Actions
 * and GitLab CI naming this server and the project. Plain HTTP, as a browser posts forms.
 */
const server = useTestServer({ overrides: { federationAllowLoopback: true } });
const signedIn = new Map<Role, { cookie: string; csrf: string; token: string }>();
let projectId: string;

beforeAll(async () => {
  const owner = await makeUser(server, { role: 'owner' });
  for (const role of ['owner', 'developer'] as const) {
    const user = role === 'owner' ? owner : await makeUser(server, { role, account_id: owner.account_id });
    const { token, session } = await server.running.container.sessions.create(user._id, owner.account_id);
    signedIn.set(role, { cookie: `slipway_session=${token}`, csrf: session.csrf_token, token });
  }
  const owners = signedIn.get('owner')!;
  const project = await v1(server, '/v1/projects', { cookie: owners.token, csrf: owners.csrf }, { method: 'POST', body: { name: 'Checkout' } });
  expect(project.status).toBe(201);
  projectId = project.body!.id;
});

async function get(role: Role, pathname: string) {
  const response = await fetch(`${server.url}${pathname}`, { redirect: 'manual', headers: { cookie: signedIn.get(role)!.cookie } });
  return { status: response.status, text: await response.text() };
}

async function post(role: Role, pathname: string, fields: Record<string, string | string[]>) {
  const body = new URLSearchParams({ _csrf: signedIn.get(role)!.csrf });
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  const response = await fetch(`${server.url}${pathname}`, { method: 'POST', redirect: 'manual', headers: { cookie: signedIn.get(role)!.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

const policies = async () => (await v1(server, `/v1/projects/${projectId}/trust_policies`, { cookie: signedIn.get('owner')!.token })).body!.data as Record<string, unknown>[];

describe('Settings › Trusted CI', () => {
  it('trusts a workflow from the form: the policy /v1 shows, then listed with snippets naming this server and the project', async () => {
    const made = await post('owner', '/dashboard/settings/trusted-ci', {
      name: 'Deploy from main',
      project_id: projectId,
      issuer: 'https://token.actions.githubusercontent.com',
      audience: '',
      claims: 'repository_id=123456\r\nref=refs/heads/main\r\n',
      scopes: ['read', 'write'],
      environments: 'staging, production',
      max_ttl_seconds: '600',
    });
    expect(made.status).toBe(303);
    expect(made.location).toBe(`/dashboard/settings/trusted-ci?project=${projectId}`);
    const [policy] = await policies();
    expect(policy).toMatchObject({
      name: 'Deploy from main',
      issuer: 'https://token.actions.githubusercontent.com',
      audience: server.url,
      claims: { repository_id: '123456', ref: 'refs/heads/main' },
      scopes: ['read', 'write'],
      environments: ['staging', 'production'],
      max_ttl_seconds: 600,
    });

    const page = await get('owner', made.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Deploy from main');
    expect(page.text).toContain('repository_id=123456, ref=refs/heads/main');
    expect(page.text).toContain('GitHub Actions');
    expect(page.text).toContain('GitLab CI');
    expect(page.text).toContain(`${server.issuer}/token`);
    expect(page.text).toContain(`-d audience=${projectId}`);
    expect(page.text).toContain(`audience=${encodeURIComponent(server.url)}`);
  });

  it('refuses what /v1 refuses, at the field, keeping what was typed', async () => {
    const refused = await post('owner', '/dashboard/settings/trusted-ci', { name: 'Loose', project_id: projectId, issuer: 'http://ci.example.com', claims: 'no equals sign', scopes: ['read'] });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/write one claim per line, as name=value/i);
    const onlyAudience = await post('owner', '/dashboard/settings/trusted-ci', { name: 'Loose', project_id: projectId, issuer: 'https://gitlab.com', claims: 'aud=x', scopes: ['read'] });
    expect(onlyAudience.status).toBe(422);
    expect(onlyAudience.text).toMatch(/must name at least one claim besides iss and aud/i);
    expect(onlyAudience.text).toContain('value="https://gitlab.com"');
  });

  it('deletes a policy after asking', async () => {
    const [policy] = await policies();
    const question = await get('owner', `/dashboard/settings/trusted-ci/${projectId}/${policy!.id}/delete`);
    expect(question.status).toBe(200);
    expect(question.text).toContain('Delete “Deploy from main”?');
    const deleted = await post('owner', `/dashboard/settings/trusted-ci/${projectId}/${policy!.id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(await policies()).toEqual([]);
  });

  it('is for admins, as on /v1', async () => {
    expect((await get('developer', '/dashboard/settings/trusted-ci')).status).toBe(403);
    expect((await post('developer', '/dashboard/settings/trusted-ci', { name: 'x', project_id: projectId, issuer: 'https://gitlab.com', claims: 'project_id=1', scopes: ['read'] })).status).toBe(403);
    expect(await policies()).toEqual([]);
  });
});
