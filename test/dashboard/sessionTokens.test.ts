import { beforeAll, describe, expect, it } from 'vitest';
import { SessionService } from '../../src/services/sessions.ts';
import { makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';
import { v1 } from './support.ts';

const server = useTestServer();
let sessions: SessionService;
let owner: Awaited<ReturnType<typeof makeUser>>;
let viewer: Awaited<ReturnType<typeof makeUser>>;

/** A session as the dashboard's sign-in creates it (stored in the database the server reads). */
const sessionFor = (user: { _id: string; account_id: string }) => sessions.create(user._id, user.account_id);

beforeAll(async () => {
  sessions = new SessionService({ ...server.repos, clock: server.clock });
  owner = await makeUser(server, { role: 'owner' });
  viewer = await makeUser(server, { role: 'viewer', account_id: owner.account_id });
});

describe('/v1 with a dashboard session token', () => {
  it('as a Bearer token: acts as the user with their role, no CSRF token needed', async () => {
    const { token } = await sessionFor(owner);
    const made = await v1(server, '/v1/projects', { bearer: token }, { method: 'POST', body: { name: 'By bearer session' } });
    expect(made.status).toBe(201);
    const listed = await v1(server, '/v1/projects', { bearer: token });
    expect(listed.status).toBe(200);
    expect(listed.body!.data.map((p: { id: string }) => p.id)).toContain(made.body!.id);
    // The owner may delete (admin); the same session token works for every method.
    expect((await v1(server, `/v1/projects/${made.body!.id}`, { bearer: token }, { method: 'DELETE' })).status).toBe(204);

    const { token: viewerToken } = await sessionFor(viewer);
    expect((await v1(server, '/v1/projects', { bearer: viewerToken })).status).toBe(200);
    const refused = await v1(server, '/v1/projects', { bearer: viewerToken }, { method: 'POST', body: { name: 'By viewer' } });
    expect(refused.status).toBe(403);
    expect(refused.body!.error.code).toBe('forbidden');
  });

  it('as the cookie: reads need nothing more; writes need the session’s CSRF token in X-CSRF-Token', async () => {
    const { token, session } = await sessionFor(owner);
    expect((await v1(server, '/v1/projects', { cookie: token })).status).toBe(200);

    const missing = await v1(server, '/v1/projects', { cookie: token }, { method: 'POST', body: { name: 'Cookie, no CSRF' } });
    expect(missing.status).toBe(403);
    expect(missing.body!.error.code).toBe('forbidden');
    expect(missing.body!.error.message).toContain('X-CSRF-Token');
    const wrong = await v1(server, '/v1/projects', { cookie: token, csrf: 'not-the-token' }, { method: 'POST', body: { name: 'Cookie, wrong CSRF' } });
    expect(wrong.status).toBe(403);
    const { token: other } = await sessionFor(owner);
    const another = await v1(server, '/v1/projects', { cookie: other, csrf: session.csrf_token }, { method: 'POST', body: { name: 'Another session’s CSRF' } });
    expect(another.status).toBe(403);
    expect(await server.repos.projects.collection.countDocuments({ account_id: owner.account_id, name: /CSRF/ })).toBe(0);

    const made = await v1(server, '/v1/projects', { cookie: token, csrf: session.csrf_token }, { method: 'POST', body: { name: 'Cookie with CSRF' } });
    expect(made.status).toBe(201);
    const removed = await v1(server, `/v1/projects/${made.body!.id}`, { cookie: token }, { method: 'DELETE' });
    expect(removed.status).toBe(403);
    expect((await v1(server, `/v1/projects/${made.body!.id}`, { cookie: token, csrf: session.csrf_token }, { method: 'DELETE' })).status).toBe(204);
  });

  it('an Authorization header wins over the cookie', async () => {
    const { token } = await sessionFor(viewer);
    const { token: ownerToken, session } = await sessionFor(owner);
    const response = await fetch(`${server.url}/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, cookie: `slipway_session=${ownerToken}`, 'x-csrf-token': session.csrf_token, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Header wins' }),
    });
    // The viewer's token decides (a viewer may not create), not the owner's cookie.
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  it('an unknown, malformed or logged-out session is 401 invalid_token, by header or cookie', async () => {
    const unknown = `slws_${'A'.repeat(43)}`;
    for (const auth of [{ bearer: unknown }, { cookie: unknown }, { bearer: 'slws_short' }, { cookie: 'slws_short' }]) {
      const response = await v1(server, '/v1/projects', auth);
      expect(response.status).toBe(401);
      expect(response.body!.error.code).toBe('invalid_token');
    }

    // Logout through the dashboard (the form with its CSRF field): the old token is refused at once.
    const { token, session } = await sessionFor(owner);
    expect((await v1(server, '/v1/projects', { cookie: token })).status).toBe(200);
    const logout = (fields: Record<string, string>) =>
      fetch(`${server.url}/dashboard/logout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `slipway_session=${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    // A sign-out form without the session's CSRF token (another site's) is refused and ends nothing.
    const forgeries: Record<string, string>[] = [{}, { _csrf: 'x'.repeat(session.csrf_token.length) }, { _csrf: `${session.csrf_token}x` }];
    for (const forged of forgeries) {
      const refused = await logout(forged);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('could not be verified');
    }
    expect((await v1(server, '/v1/projects', { cookie: token })).status).toBe(200);
    expect((await logout({ _csrf: session.csrf_token })).status).toBe(303);
    expect((await v1(server, '/v1/projects', { cookie: token })).status).toBe(401);
    expect((await v1(server, '/v1/projects', { bearer: token })).status).toBe(401);
  });
});
