import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/domain/principal.ts';
import { makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';
import { startAnotherInstance, type TestServer } from '../support/server.ts';
import { race } from '../support/concurrency.ts';

/**
 * The dashboard's routes as declared on its PageRouter: the scope next to each path (refused before
 * the handler), and every form through one action (claim → parse → service → redirect, or the form
 * again with the refusal, or a message on the page it came from). Plain HTTP, as a browser posts forms.
 */
const server = useTestServer();
let other: TestServer;
let accountId: string;
const signedIn = new Map<Role, { cookie: string; csrf: string }>();

beforeAll(async () => {
  other = await startAnotherInstance(server);
  const owner = await makeUser(server, { role: 'owner' });
  accountId = owner.account_id;
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
    const user = role === 'owner' ? owner : await makeUser(server, { role, account_id: accountId });
    const { token, session } = await server.running.container.sessions.create(user._id, accountId);
    signedIn.set(role, { cookie: `slipway_session=${token}`, csrf: session.csrf_token });
  }
});
afterAll(async () => {
  await other?.stop();
});

const as = (role: Role) => signedIn.get(role)!;

async function get(role: Role, pathname: string, extraCookies = '', on = server) {
  const response = await fetch(`${on.url}${pathname}`, { redirect: 'manual', headers: { cookie: [as(role).cookie, extraCookies].filter(Boolean).join('; ') } });
  return { status: response.status, text: await response.text() };
}

async function post(role: Role, pathname: string, fields: Record<string, string | string[]>, on = server) {
  const body = new URLSearchParams();
  body.set('_csrf', as(role).csrf);
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  const response = await fetch(`${on.url}${pathname}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: as(role).cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  // The flash message travels in a signed cookie to the page the redirect leads to.
  const flash = response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .filter((c) => c.startsWith('slipway_flash'))
    .join('; ');
  return { status: response.status, location: response.headers.get('location'), flash, text: await response.text() };
}

async function newProject(name = `Project ${randomBytes(3).toString('hex')}`): Promise<string> {
  const made = await post('owner', '/dashboard/projects', { name, deploy_target: '' });
  expect(made.status).toBe(303);
  return made.location!.split('/').pop()!;
}

const countProjects = () => server.repos.projects.collection.countDocuments({ account_id: accountId });

describe('each route declares the scope it needs', () => {
  it('pages: below it, 403 with the reason, whatever the page', async () => {
    const project = await newProject();
    const adminPages = ['/dashboard/events', '/dashboard/settings/api-keys', '/dashboard/settings/webhooks', '/dashboard/settings/oauth-apps', `/dashboard/projects/${project}/api-keys`, `/dashboard/projects/${project}/activity`, `/dashboard/projects/${project}/delete`];
    for (const pathname of adminPages) {
      const refused = await get('developer', pathname);
      expect(refused.status, pathname).toBe(403);
      expect(refused.text, pathname).toContain('needs admin access');
      expect((await get('admin', pathname)).status, pathname).toBe(200);
    }
    for (const pathname of ['/dashboard/projects', `/dashboard/projects/${project}`, `/dashboard/projects/${project}/configuration`, '/dashboard/settings/users', '/dashboard/account'])
      expect((await get('viewer', pathname)).status, pathname).toBe(200);
  });

  it('forms: below it, 403 before anything is parsed or changed', async () => {
    const project = await newProject();
    const before = await countProjects();
    const writes: [string, Record<string, string>][] = [
      ['/dashboard/projects', { name: 'By a viewer' }],
      [`/dashboard/projects/${project}/status`, { status: 'paused' }],
      [`/dashboard/projects/${project}/deployments`, { environment: 'production', branch: 'main' }],
      [`/dashboard/projects/${project}/configurations`, { environment: 'production', key: 'A', value: 'b' }],
    ];
    for (const [pathname, fields] of writes) {
      const refused = await post('viewer', pathname, fields);
      expect(refused.status, pathname).toBe(403);
      expect(refused.text, pathname).toContain('does not allow this operation');
    }
    expect((await post('developer', `/dashboard/projects/${project}/delete`, {})).status).toBe(403);
    expect(await countProjects()).toBe(before);
    expect((await server.repos.projects.collection.findOne({ _id: project }))!.status).toBe('active');
    expect(await server.repos.deployments.collection.countDocuments({ project_id: project })).toBe(0);
  });
});

describe('the navigation', () => {
  it('marks the entry the page belongs to, from its path (pages below it too, and confirmation steps)', async () => {
    const project = await newProject();
    const cases: [string, string][] = [
      ['/dashboard/projects', '/dashboard/projects'],
      [`/dashboard/projects/${project}/configuration`, '/dashboard/projects'],
      [`/dashboard/projects/${project}/delete`, '/dashboard/projects'],
      ['/dashboard/events', '/dashboard/events'],
      ['/dashboard/settings/oauth-apps', '/dashboard/settings/oauth-apps'],
      ['/dashboard/settings/users', '/dashboard/settings/users'],
      ['/dashboard/account', '/dashboard/account'],
    ];
    for (const [pathname, entry] of cases) {
      const page = await get('owner', pathname);
      expect(page.status, pathname).toBe(200);
      expect(page.text, pathname).toContain(`href="${entry}" aria-current="page"`);
    }
  });
});

describe('a refused form', () => {
  it('is shown again with the message at its field and the values sent (never a password or a secret value)', async () => {
    const empty = await post('owner', '/dashboard/projects', { name: '', deploy_target: '' });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('id="project-name-error"');

    const name = `Taken ${randomBytes(3).toString('hex')}`;
    await newProject(name);
    const taken = await post('owner', '/dashboard/projects', { name, deploy_target: '' });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('id="project-name-error"');
    expect(taken.text).toContain(`value="${name}"`);

    const project = await newProject();
    const secret = `s3cret-${randomBytes(6).toString('hex')}`;
    const bad = await post('owner', `/dashboard/projects/${project}/configurations`, { environment: 'Not Valid', key: 'API_TOKEN', value: secret, secret: 'true' });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('id="config-environment-error"');
    expect(bad.text).toContain('value="API_TOKEN"');
    expect(bad.text).not.toContain(secret);

    const user = await post('owner', '/dashboard/settings/users', { _once: randomBytes(16).toString('base64url'), email: 'not-an-email', name: 'X', role: 'viewer', credential: 'password', password: 'a-long-enough-password' });
    expect(user.status).toBe(422);
    expect(user.text).toContain('id="user-email-error"');
    expect(user.text).not.toContain('a-long-enough-password');
  });

  it('from a button in a list goes back to its page with the message (Post/Redirect/Get)', async () => {
    const project = await newProject();
    expect((await post('owner', `/dashboard/projects/${project}/status`, { status: 'archived' })).status).toBe(303);
    const refused = await post('owner', `/dashboard/projects/${project}/status`, { status: 'paused' });
    expect(refused.status).toBe(303);
    expect(refused.location).toBe(`/dashboard/projects/${project}`);
    const shown = await get('owner', refused.location!, refused.flash);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('class="flash flash-error"');
    expect((await server.repos.projects.collection.findOne({ _id: project }))!.status).toBe('archived');

    const moved = await post('owner', `/dashboard/projects/${project}/status`, { status: 'active' });
    expect(moved.status).toBe(303);
    expect((await get('owner', moved.location!, moved.flash)).text).toContain('is now active.');
  });
});

describe('a form whose answer shows a secret', () => {
  it('is answered once when posted many times at once, on one instance and on two; the rest go back with a message', async () => {
    const project = await newProject();
    for (const instances of [[server], [server, other]]) {
      const once = randomBytes(16).toString('base64url');
      const name = `Parallel key ${randomBytes(3).toString('hex')}`;
      const answers = await race(12, (i) => post('owner', '/dashboard/settings/api-keys', { _once: once, name, project_id: project, scopes: 'read' }, instances[i % instances.length]));
      const statuses = answers.map((a) => a.status);
      console.log(`[single use] Create Key form posted 12× at once on ${instances.length} instance(s): ${statuses.filter((s) => s === 200).length} answered with the key`);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 303)).toHaveLength(11);
      for (const again of answers.filter((a) => a.status === 303)) {
        expect(again.location).toBe('/dashboard/settings/api-keys');
        expect(again.flash).toContain('slipway_flash=');
      }
      expect(await server.repos.apiKeys.collection.countDocuments({ project_id: project, name })).toBe(1);
    }
  });
});

describe('the users page offers what the policy allows', () => {
  const ownerId = () => server.repos.users.collection.findOne({ account_id: accountId, role: 'owner' }).then((u) => u!._id);
  const roleOptionsOf = (text: string, userId: string) => {
    const select = new RegExp(`<select id="role-${userId}" name="role">(.*?)</select>`, 's').exec(text)?.[1];
    return select === undefined ? null : [...select.matchAll(/<option value="(\w+)"/g)].map((m) => m[1]);
  };
  const addRolesOf = (text: string) => [...(/<select id="user-role"[^>]*>(.*?)<\/select>/s.exec(text)?.[1] ?? '').matchAll(/<option value="(\w+)"/g)].map((m) => m[1]);

  it('an admin: no owner role to give, no role change or removal of an owner; an owner: all of it', async () => {
    const owner = await ownerId();
    const developer = await makeUser(server, { role: 'developer', account_id: accountId });

    const asAdmin = await get('admin', '/dashboard/settings/users');
    expect(asAdmin.status).toBe(200);
    expect(roleOptionsOf(asAdmin.text, owner)).toBeNull();
    expect(asAdmin.text).not.toContain(`/dashboard/settings/users/${owner}/remove`);
    expect(roleOptionsOf(asAdmin.text, developer._id)).toEqual(['viewer', 'developer', 'admin']);
    expect(asAdmin.text).toContain(`/dashboard/settings/users/${developer._id}/remove`);
    expect(addRolesOf(asAdmin.text)).toEqual(['viewer', 'developer', 'admin']);
    // What is not offered is refused too (the page and the service ask the same policy).
    const refused = await post('admin', `/dashboard/settings/users/${developer._id}/role`, { role: 'owner' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Only an owner can grant the owner role');
    expect((await server.repos.users.collection.findOne({ _id: developer._id }))!.role).toBe('developer');

    const asOwner = await get('owner', '/dashboard/settings/users');
    expect(roleOptionsOf(asOwner.text, developer._id)).toEqual(['viewer', 'developer', 'admin', 'owner']);
    expect(roleOptionsOf(asOwner.text, owner)).toEqual(['viewer', 'developer', 'admin', 'owner']);
    expect(addRolesOf(asOwner.text)).toEqual(['viewer', 'developer', 'admin', 'owner']);

    const asDeveloper = await get('developer', '/dashboard/settings/users');
    expect(roleOptionsOf(asDeveloper.text, owner)).toBeNull();
    expect(asDeveloper.text).not.toContain('/remove"');
  });
});
