import { beforeAll, describe, expect, it } from 'vitest';
import type { Principal, Scope, Role } from '../../src/domain/principal.ts';
import { newId } from '../../src/lib/ids.ts';
import type { Api } from '../support/api.ts';
import { acceptInvitation, makeClient } from '../support/factories.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/**
 * docs/product.md §3 as a table: every /v1 route × every kind of credential. A user's request succeeds only if
 * both the token's scope and the role allow it; the role is judged first (403 forbidden), then the
 * scope (403 insufficient_scope with a WWW-Authenticate challenge naming the scope). API keys are a
 * column of their own: a key of the route's project follows the scope rule, a key of another project
 * gets 404, and routes for users, keys, clients and events refuse every key (403 forbidden).
 */

// The owner's token makes every cell's fixtures: lift the hourly limit so the table cannot hit it.
const env = useApiServer({ overrides: { apiRateLimitPerHour: 1_000_000 } });
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, ownerToken: string;
const users = {} as Record<Role, TestUser>;
/**
 * A person who is an admin of this account and the owner of another (docs/product.md §11), with an admin
 * token and a dashboard session bound to the other one: the column that shows a credential acts in its
 * own account only.
 */
let elsewhere: { person: TestUser; token: string; session: string };

/** Each person's password hash at the start (by identity), restored after a cell changes it through /users/me/password. */
const passwordHashes = new Map<string, string>();

beforeAll(async () => {
  ({ server, api, tokens, owner, adminToken: ownerToken } = env);
  users.owner = owner;
  for (const role of ['viewer', 'developer', 'admin'] as const) users[role] = await tokens.user(role, owner.accountId);
  const person = await tokens.user('owner');
  const invited = await api.post('/v1/users', { token: ownerToken, body: { email: person.email, name: 'In two accounts', role: 'admin' } });
  expect(invited.status).toBe(201);
  await acceptInvitation(server, invited.body, person.password);
  elsewhere = { person, token: await tokens.accessToken(person, 'admin'), session: (await server.services.sessions.create(person.id, person.accountId)).token };
  for (const user of Object.values(users)) {
    const person = (await server.repos.users.findById(user.id))!.identity_id!;
    passwordHashes.set(person, (await server.repos.identities.findById(person))!.password_hash!);
  }
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now()}`;

const newProject = async (): Promise<string> => (await createProject(api, ownerToken)).id;
async function newDeployment(projectId: string): Promise<string> {
  const res = await api.post(`/v1/projects/${projectId}/deployments`, { token: ownerToken, body: { environment: 'production', branch: 'main' } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function newConfiguration(projectId: string): Promise<string> {
  const res = await api.post(`/v1/projects/${projectId}/configurations`, { token: ownerToken, body: { environment: 'production', key: `K_${++counter}`, value: 'v', secret: true } });
  expect(res.status).toBe(201);
  return res.body.id;
}
async function newApiKeyId(projectId: string): Promise<string> {
  const res = await api.post(`/v1/projects/${projectId}/api_keys`, { token: ownerToken, body: { name: unique('fixture key'), scopes: ['read'] } });
  expect(res.status).toBe(201);
  return res.body.id;
}
/** A viewer in the owner's account, written directly (an active member nobody signs in as: it is only changed or removed). */
async function newMember(): Promise<string> {
  const now = new Date();
  const id = newId('user', now.getTime());
  const email = `${unique('member')}@example.com`;
  await server.repos.users.insert({ _id: id, account_id: owner.accountId, email, identity_id: newId('identity'), status: 'active', name: 'Member', role: 'viewer', created_at: now, updated_at: now, last_login_at: null });
  return id;
}
async function newClientId(confidential = false): Promise<string> {
  const { client } = await makeClient(server, {
    account_id: owner.accountId,
    ...(confidential ? { redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' as const, grant_types: ['client_credentials' as const] } : {}),
  });
  return client._id;
}
/** A key for `projectId` with `scope`, made through the service (the table tests using it, not making it). */
async function apiKeyFor(projectId: string, scope: Scope): Promise<string> {
  const asOwner: Principal = { kind: 'user', id: owner.id, accountId: owner.accountId, scopes: new Set(['read', 'write', 'admin']), role: 'owner', credential: 'access_token' };
  const { key } = await server.services.apiKeys.create(asOwner, projectId, { name: `table ${scope}`, scopes: [scope] });
  return key;
}
async function restorePasswords(): Promise<void> {
  for (const [id, hash] of passwordHashes) await server.repos.identities.collection.updateOne({ _id: id }, { $set: { password_hash: hash } });
}

interface CellRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** The project the route acts on, if any: the API key column makes keys of it and of another one. */
  projectId?: string;
}

interface RouteCase {
  name: string;
  needs: Scope;
  success: number;
  /**
   * Which credentials the route is for: every kind (default); not API keys (users, keys, clients,
   * events, creating projects: any key → 403 forbidden); or only users (a client or a key → 403).
   */
  for?: 'all' | 'not api keys' | 'users';
  /** Builds a fresh request (fixtures included) for one cell of the table. */
  request(): Promise<CellRequest>;
  /** Undoes what a successful cell changed that later cells rely on. */
  after?(): Promise<void>;
}

const ROUTES: RouteCase[] = [
  { name: 'GET /v1/projects', needs: 'read', success: 200, request: async () => ({ method: 'GET', path: '/v1/projects' }) },
  { name: 'POST /v1/projects', needs: 'write', success: 201, for: 'not api keys', request: async () => ({ method: 'POST', path: '/v1/projects', body: { name: unique('created') } }) },
  { name: 'GET /v1/projects/:id', needs: 'read', success: 200, request: async () => inProject((p) => ({ method: 'GET', path: `/v1/projects/${p}` })) },
  { name: 'PATCH /v1/projects/:id', needs: 'write', success: 200, request: async () => inProject((p) => ({ method: 'PATCH', path: `/v1/projects/${p}`, body: { name: unique('renamed') } })) },
  { name: 'DELETE /v1/projects/:id', needs: 'admin', success: 204, request: async () => inProject((p) => ({ method: 'DELETE', path: `/v1/projects/${p}` })) },
  { name: 'GET /v1/projects/:id/deployments', needs: 'read', success: 200, request: async () => inProject((p) => ({ method: 'GET', path: `/v1/projects/${p}/deployments` })) },
  {
    name: 'POST /v1/projects/:id/deployments',
    needs: 'write',
    success: 201,
    request: async () => inProject((p) => ({ method: 'POST', path: `/v1/projects/${p}/deployments`, body: { environment: 'staging', branch: 'feature/x' } })),
  },
  {
    name: 'GET /v1/projects/:id/deployments/:id',
    needs: 'read',
    success: 200,
    request: async () => inProject(async (p) => ({ method: 'GET', path: `/v1/projects/${p}/deployments/${await newDeployment(p)}` })),
  },
  {
    name: 'PATCH /v1/projects/:id/deployments/:id',
    needs: 'write',
    success: 200,
    request: async () => inProject(async (p) => ({ method: 'PATCH', path: `/v1/projects/${p}/deployments/${await newDeployment(p)}`, body: { status: 'building' } })),
  },
  // Configurations
  { name: 'GET /v1/projects/:id/configurations', needs: 'read', success: 200, request: async () => inProject((p) => ({ method: 'GET', path: `/v1/projects/${p}/configurations` })) },
  {
    name: 'GET /v1/projects/:id/configurations?reveal=true',
    needs: 'admin',
    success: 200,
    request: async () => inProject(async (p) => (await newConfiguration(p), { method: 'GET', path: `/v1/projects/${p}/configurations?reveal=true` })),
  },
  {
    name: 'POST /v1/projects/:id/configurations',
    needs: 'write',
    success: 201,
    request: async () => inProject((p) => ({ method: 'POST', path: `/v1/projects/${p}/configurations`, body: { environment: 'production', key: 'LOG_LEVEL', value: 'debug' } })),
  },
  {
    name: 'GET /v1/projects/:id/configurations/:id',
    needs: 'read',
    success: 200,
    request: async () => inProject(async (p) => ({ method: 'GET', path: `/v1/projects/${p}/configurations/${await newConfiguration(p)}` })),
  },
  {
    name: 'GET /v1/projects/:id/configurations/:id?reveal=true',
    needs: 'admin',
    success: 200,
    request: async () => inProject(async (p) => ({ method: 'GET', path: `/v1/projects/${p}/configurations/${await newConfiguration(p)}?reveal=true` })),
  },
  {
    name: 'PATCH /v1/projects/:id/configurations/:id',
    needs: 'write',
    success: 200,
    request: async () => inProject(async (p) => ({ method: 'PATCH', path: `/v1/projects/${p}/configurations/${await newConfiguration(p)}`, body: { value: 'changed' } })),
  },
  {
    name: 'DELETE /v1/projects/:id/configurations/:id',
    needs: 'write',
    success: 204,
    request: async () => inProject(async (p) => ({ method: 'DELETE', path: `/v1/projects/${p}/configurations/${await newConfiguration(p)}` })),
  },
  // API keys
  { name: 'GET /v1/projects/:id/api_keys', needs: 'admin', success: 200, for: 'not api keys', request: async () => inProject((p) => ({ method: 'GET', path: `/v1/projects/${p}/api_keys` })) },
  {
    name: 'POST /v1/projects/:id/api_keys',
    needs: 'admin',
    success: 201,
    for: 'not api keys',
    request: async () => inProject((p) => ({ method: 'POST', path: `/v1/projects/${p}/api_keys`, body: { name: 'deploy', scopes: ['write'] } })),
  },
  {
    name: 'GET /v1/projects/:id/api_keys/:id',
    needs: 'admin',
    success: 200,
    for: 'not api keys',
    request: async () => inProject(async (p) => ({ method: 'GET', path: `/v1/projects/${p}/api_keys/${await newApiKeyId(p)}` })),
  },
  {
    name: 'DELETE /v1/projects/:id/api_keys/:id',
    needs: 'admin',
    success: 200,
    for: 'not api keys',
    request: async () => inProject(async (p) => ({ method: 'DELETE', path: `/v1/projects/${p}/api_keys/${await newApiKeyId(p)}` })),
  },
  {
    name: 'POST /v1/projects/:id/api_keys/:id/rotate',
    needs: 'admin',
    success: 200,
    for: 'not api keys',
    request: async () => inProject(async (p) => ({ method: 'POST', path: `/v1/projects/${p}/api_keys/${await newApiKeyId(p)}/rotate`, body: { grace_period_seconds: 60 } })),
  },
  // Users
  { name: 'GET /v1/users', needs: 'read', success: 200, for: 'not api keys', request: async () => ({ method: 'GET', path: '/v1/users' }) },
  { name: 'GET /v1/users/me', needs: 'read', success: 200, for: 'users', request: async () => ({ method: 'GET', path: '/v1/users/me' }) },
  { name: 'GET /v1/users/:id', needs: 'read', success: 200, for: 'not api keys', request: async () => ({ method: 'GET', path: `/v1/users/${owner.id}` }) },
  {
    name: 'POST /v1/users',
    needs: 'admin',
    success: 201,
    for: 'not api keys',
    request: async () => ({ method: 'POST', path: '/v1/users', body: { email: `${unique('invited')}@example.com`, name: 'Invited', role: 'viewer' } }),
  },
  { name: 'PATCH /v1/users/:id', needs: 'admin', success: 200, for: 'not api keys', request: async () => ({ method: 'PATCH', path: `/v1/users/${await newMember()}`, body: { role: 'developer' } }) },
  { name: 'DELETE /v1/users/:id', needs: 'admin', success: 204, for: 'not api keys', request: async () => ({ method: 'DELETE', path: `/v1/users/${await newMember()}` }) },
  {
    name: 'POST /v1/users/me/password',
    needs: 'read',
    success: 204,
    for: 'users',
    request: async () => ({ method: 'POST', path: '/v1/users/me/password', body: { current_password: owner.password, new_password: 'a different password' } }),
    after: restorePasswords,
  },
  // A person's accounts
  { name: 'GET /v1/accounts', needs: 'read', success: 200, for: 'users', request: async () => ({ method: 'GET', path: '/v1/accounts' }) },
  // OAuth clients
  { name: 'GET /v1/oauth_clients', needs: 'admin', success: 200, for: 'not api keys', request: async () => ({ method: 'GET', path: '/v1/oauth_clients' }) },
  {
    name: 'POST /v1/oauth_clients',
    needs: 'admin',
    success: 201,
    for: 'not api keys',
    request: async () => ({ method: 'POST', path: '/v1/oauth_clients', body: { client_name: 'Table app', redirect_uris: ['https://app.example.com/callback'] } }),
  },
  { name: 'GET /v1/oauth_clients/:id', needs: 'admin', success: 200, for: 'not api keys', request: async () => ({ method: 'GET', path: `/v1/oauth_clients/${await newClientId()}` }) },
  { name: 'DELETE /v1/oauth_clients/:id', needs: 'admin', success: 204, for: 'not api keys', request: async () => ({ method: 'DELETE', path: `/v1/oauth_clients/${await newClientId()}` }) },
  {
    name: 'POST /v1/oauth_clients/:id/rotate_secret',
    needs: 'admin',
    success: 200,
    for: 'not api keys',
    request: async () => ({ method: 'POST', path: `/v1/oauth_clients/${await newClientId(true)}/rotate_secret` }),
  },
  // The audit log
  { name: 'GET /v1/events', needs: 'admin', success: 200, for: 'not api keys', request: async () => ({ method: 'GET', path: '/v1/events' }) },
];

/** A request on a fresh project, which it names for the API key column. */
async function inProject(build: (projectId: string) => CellRequest | Promise<CellRequest>): Promise<CellRequest> {
  const projectId = await newProject();
  return { ...(await build(projectId)), projectId };
}

/** Sends one cell's request and undoes what it changed. */
async function send(route: RouteCase, token: string | undefined, cell?: CellRequest) {
  const { method, path, body } = cell ?? (await route.request());
  try {
    return await api.request(method, path, { body, ...(token ? { token } : {}) });
  } finally {
    await route.after?.();
  }
}

const RANK: Record<Scope, number> = { read: 0, write: 1, admin: 2 };
const CEILING: Record<Role, Scope> = { viewer: 'read', developer: 'write', admin: 'admin', owner: 'admin' };

describe.each(ROUTES)('$name', (route) => {
  it('without a credential → 401 unauthorized with a Bearer challenge', async () => {
    const res = await send(route, undefined);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="slipway"');
  });

  it('with a bad, a badly signed or an expired token, or a malformed API key → 401 invalid_token', async () => {
    const claims = tokens.userClaims(owner, await tokens.publicClient(owner.accountId));
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      'not-a-token',
      'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
      await tokens.forge(claims, { foreignKey: true }),
      await tokens.forge({ ...claims, iat: now - 7200, exp: now - 3600 }),
      `slw_${'0'.repeat(38)}`,
    ];
    for (const token of bad) {
      const res = await send(route, token);
      expect(res.status, token.slice(0, 20)).toBe(401);
      expect(res.body.error.code).toBe('invalid_token');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="slipway", error="invalid_token"/);
    }
  });

  for (const role of ['viewer', 'developer', 'admin', 'owner'] as const) {
    for (const scope of ['read', 'write', 'admin'] as const) {
      const roleAllows = RANK[CEILING[role]] >= RANK[route.needs];
      const scopeAllows = RANK[scope] >= RANK[route.needs];
      const expected = !roleAllows ? 403 : !scopeAllows ? 403 : route.success;
      const code = !roleAllows ? 'forbidden' : !scopeAllows ? 'insufficient_scope' : undefined;
      it(`${role} with a "${scope}" token → ${expected}${code ? ` ${code}` : ''}`, async () => {
        const token = await tokens.accessToken(users[role], scope);
        const res = await send(route, token);
        expect(res.status).toBe(expected);
        if (code) {
          expect(res.body.error.code).toBe(code);
          if (code === 'insufficient_scope')
            expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="slipway", error="insufficient_scope", scope="${route.needs}"`);
        }
      });
    }
  }

  // Acting on the person rather than an account, the password change has its own tests (test/v1/users.test.ts).
  if (route.name !== 'POST /v1/users/me/password')
    it('a person in this account and another, with an admin token or a session bound to the other → nothing of this account', async () => {
      for (const [kind, token] of [['token', elsewhere.token], ['session', elsewhere.session]] as const) {
        const cell = await route.request();
        const res = await send(route, token, cell);
        const ofThisAccount = cell.projectId !== undefined || /^\/v1\/(users|oauth_clients)\/(?!me\b)[^/?]+/.test(cell.path);
        if (ofThisAccount) {
          expect(res.status, kind).toBe(404);
          expect(res.body.error.code).toBe('not_found');
        } else if (route.name === 'GET /v1/accounts') {
          // The person's own memberships: both accounts, by design.
          expect(res.body.data.map((a: { account_id: string }) => a.account_id).sort(), kind).toEqual([owner.accountId, elsewhere.person.accountId].sort());
        } else {
          expect(res.status, kind).toBe(route.success);
          expect(JSON.stringify(res.body), kind).not.toContain(owner.accountId);
        }
      }
    });

  const clientsAllowed = route.for !== 'users';
  it(`a client_credentials token ${clientsAllowed ? 'acts for its account with its scopes' : 'is refused (403 forbidden): the route is for users'}`, async () => {
    for (const scope of ['read', 'write', 'admin'] as const) {
      const { token } = await tokens.forClient(owner.accountId, scope);
      const res = await send(route, token);
      if (!clientsAllowed) {
        expect(res.status, scope).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
        continue;
      }
      expect(res.status, scope).toBe(RANK[scope] >= RANK[route.needs] ? route.success : 403);
      if (res.status === 403) expect(res.body.error.code).toBe('insufficient_scope');
    }
  });

  if ((route.for ?? 'all') === 'all') {
    for (const scope of ['read', 'write', 'admin'] as const) {
      const allowed = RANK[scope] >= RANK[route.needs];
      it(`an API key of the project with "${scope}" → ${allowed ? route.success : '403 insufficient_scope'}`, async () => {
        const cell = await route.request();
        const key = await apiKeyFor(cell.projectId ?? (await newProject()), scope);
        const res = await send(route, key, cell);
        expect(res.status).toBe(allowed ? route.success : 403);
        if (!allowed) {
          expect(res.body.error.code).toBe('insufficient_scope');
          expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="slipway", error="insufficient_scope", scope="${route.needs}"`);
        }
      });
    }
    it('an admin API key of another project → 404 not_found (or, listing, only its own project)', async () => {
      const cell = await route.request();
      const elsewhere = await newProject();
      const res = await send(route, await apiKeyFor(elsewhere, 'admin'), cell);
      if (cell.projectId) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      } else {
        expect(res.status).toBe(200);
        expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([elsewhere]);
      }
    });
  } else {
    it('an API key, whatever its scopes → 403 forbidden', async () => {
      for (const scope of ['read', 'admin'] as const) {
        const cell = await route.request();
        const res = await send(route, await apiKeyFor(cell.projectId ?? (await newProject()), scope), cell);
        expect(res.status, scope).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
      }
    });
  }
});
