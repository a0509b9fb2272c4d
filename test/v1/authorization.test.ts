import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/principal.ts';
import type { Role } from '../../src/repositories/users.ts';
import { Api } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';

/**
 * PRODUCT §3 as a table: every /v1 route × every kind of credential. A user's request succeeds only if
 * both the token's scope and the role allow it; the role is judged first (403 forbidden), then the
 * scope (403 insufficient_scope with a WWW-Authenticate challenge naming the scope).
 */

let server: TestServer;
let api: Api;
let tokens: Tokens;
let owner: TestUser;
let ownerToken: string;
const users = {} as Record<Role, TestUser>;

beforeAll(async () => {
  server = await startTestServer();
  api = await Api.connect(server.url);
  tokens = new Tokens(server);
  owner = await tokens.user('owner');
  ownerToken = await tokens.accessToken(owner, 'admin');
  users.owner = owner;
  for (const role of ['viewer', 'developer', 'admin'] as const) users[role] = await tokens.user(role, owner.accountId);
});
afterAll(async () => server?.stop());

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now()}`;

async function newProject(): Promise<string> {
  const res = await api.post('/v1/projects', { token: ownerToken, body: { name: unique('fixture') } });
  expect(res.status).toBe(201);
  return res.body.id;
}
async function newDeployment(projectId: string): Promise<string> {
  const res = await api.post(`/v1/projects/${projectId}/deployments`, { token: ownerToken, body: { environment: 'production', branch: 'main' } });
  expect(res.status).toBe(201);
  return res.body.id;
}

interface RouteCase {
  name: string;
  needs: Scope;
  success: number;
  /** Builds a fresh request (fixtures included) for one cell of the table. */
  request(): Promise<{ method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; body?: unknown }>;
}

const ROUTES: RouteCase[] = [
  { name: 'GET /v1/projects', needs: 'read', success: 200, request: async () => ({ method: 'GET', path: '/v1/projects' }) },
  { name: 'POST /v1/projects', needs: 'write', success: 201, request: async () => ({ method: 'POST', path: '/v1/projects', body: { name: unique('created') } }) },
  { name: 'GET /v1/projects/:id', needs: 'read', success: 200, request: async () => ({ method: 'GET', path: `/v1/projects/${await newProject()}` }) },
  { name: 'PATCH /v1/projects/:id', needs: 'write', success: 200, request: async () => ({ method: 'PATCH', path: `/v1/projects/${await newProject()}`, body: { name: unique('renamed') } }) },
  { name: 'DELETE /v1/projects/:id', needs: 'admin', success: 204, request: async () => ({ method: 'DELETE', path: `/v1/projects/${await newProject()}` }) },
  { name: 'GET /v1/projects/:id/deployments', needs: 'read', success: 200, request: async () => ({ method: 'GET', path: `/v1/projects/${await newProject()}/deployments` }) },
  {
    name: 'POST /v1/projects/:id/deployments',
    needs: 'write',
    success: 201,
    request: async () => ({ method: 'POST', path: `/v1/projects/${await newProject()}/deployments`, body: { environment: 'staging', branch: 'feature/x' } }),
  },
  {
    name: 'GET /v1/projects/:id/deployments/:id',
    needs: 'read',
    success: 200,
    request: async () => {
      const project = await newProject();
      return { method: 'GET', path: `/v1/projects/${project}/deployments/${await newDeployment(project)}` };
    },
  },
  {
    name: 'PATCH /v1/projects/:id/deployments/:id',
    needs: 'write',
    success: 200,
    request: async () => {
      const project = await newProject();
      return { method: 'PATCH', path: `/v1/projects/${project}/deployments/${await newDeployment(project)}`, body: { status: 'building' } };
    },
  },
];

const RANK: Record<Scope, number> = { read: 0, write: 1, admin: 2 };
const CEILING: Record<Role, Scope> = { viewer: 'read', developer: 'write', admin: 'admin', owner: 'admin' };

describe.each(ROUTES)('$name', (route) => {
  it('without a credential → 401 unauthorized with a Bearer challenge', async () => {
    const { method, path, body } = await route.request();
    const res = await api.request(method, path, { body });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="slipway"');
  });

  it('with a bad, a badly signed or an expired token → 401 invalid_token', async () => {
    const claims = tokens.userClaims(owner, await tokens.publicClient(owner.accountId));
    const now = Math.floor(Date.now() / 1000);
    const bad = ['not-a-token', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', await tokens.forge(claims, { foreignKey: true }), await tokens.forge({ ...claims, iat: now - 7200, exp: now - 3600 })];
    for (const token of bad) {
      const { method, path, body } = await route.request();
      const res = await api.request(method, path, { body, token });
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
        const { method, path, body } = await route.request();
        const res = await api.request(method, path, { body, token });
        expect(res.status).toBe(expected);
        if (code) {
          expect(res.body.error.code).toBe(code);
          if (code === 'insufficient_scope')
            expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="slipway", error="insufficient_scope", scope="${route.needs}"`);
        }
      });
    }
  }

  it('a client_credentials token acts for its account with its scopes', async () => {
    for (const scope of ['read', 'write', 'admin'] as const) {
      const { token } = await tokens.forClient(owner.accountId, scope);
      const { method, path, body } = await route.request();
      const res = await api.request(method, path, { body, token });
      expect(res.status, scope).toBe(RANK[scope] >= RANK[route.needs] ? route.success : 403);
      if (res.status === 403) expect(res.body.error.code).toBe('insufficient_scope');
    }
  });
});
