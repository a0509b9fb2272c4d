import { beforeAll, describe, expect, it } from 'vitest';
import { authorize, authorizeKind, can, declaredRules, kindsAllowed, type Action, type PolicyPrincipal, type Resource, type Target } from '../../src/domain/policy.ts';
import type { Role } from '../../src/domain/principal.ts';
import type { AppError } from '../../src/errors.ts';
import { newId } from '../../src/lib/ids.ts';
import type { Api } from '../support/api.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import type { TestUser, Tokens } from '../support/tokens.ts';

/**
 * docs/product.md §3 and docs/ARCHITECTURE.md "Who may do what" as a table: every kind of principal (a
 * user of each role, a confidential client, an API key of project P, the operator) × every action on
 * every resource → allowed (Y), refused 403 forbidden (F), or not found 404 (N: another account, or for
 * an API key another project). Scopes are not the policy's (the route's requireScope judges them), so a
 * viewer may "delete a project" here: its token can never carry the scope for it.
 *
 * The same cells are then sent through the real /v1 API (a sample: those a route exposes), each with
 * credentials whose scope the route accepts, so only the policy can refuse them.
 */

const A = newId('account');
const B = newId('account');
const P = newId('project');
const Q = newId('project');

const COLUMNS = ['viewer', 'developer', 'admin', 'owner', 'client', 'api_key', 'system'] as const;
type Column = (typeof COLUMNS)[number];

const principals: Record<Column, PolicyPrincipal> = {
  viewer: { kind: 'user', id: newId('user'), accountId: A, role: 'viewer' },
  developer: { kind: 'user', id: newId('user'), accountId: A, role: 'developer' },
  admin: { kind: 'user', id: newId('user'), accountId: A, role: 'admin' },
  owner: { kind: 'user', id: newId('user'), accountId: A, role: 'owner' },
  client: { kind: 'client', id: 'cli_table', accountId: A },
  api_key: { kind: 'api_key', id: newId('apiKey'), accountId: A, projectId: P },
  system: { kind: 'system', id: 'cli', accountId: A },
};

type Cell = 'Y' | 'F' | 'N';

interface Row<R extends Resource = Resource> {
  resource: R;
  actions: Action<R>[];
  target?: Target<R>;
  /** Seven cells in COLUMNS order: viewer, developer, admin, owner, client, api_key, system. */
  expect: string;
}

const row = <R extends Resource>(resource: R, actions: Action<R>[], expect: string, target?: Target<R>): Row => ({ resource, actions, expect, ...(target ? { target } : {}) }) as Row;

const user = (role: Role, extra: { to?: Role; account_id?: string } = {}): Target<'user'> => ({ _id: newId('user'), account_id: extra.account_id ?? A, role, to: extra.to });

const TABLE: Row[] = [
  // Projects: everyone, confined; creating one is not for API keys.
  row('project', ['list', 'read', 'update', 'delete'], 'YYYYYYY'),
  row('project', ['read', 'update', 'delete'], 'YYYYYYY', { _id: P, account_id: A }),
  row('project', ['read', 'update', 'delete'], 'YYYYYNY', { _id: Q, account_id: A }),
  row('project', ['read', 'update', 'delete'], 'NNNNNNN', { _id: P, account_id: B }),
  row('project', ['create'], 'YYYYYFY'),
  // Inside a project: everyone who sees the project.
  row('deployment', ['list', 'read', 'create', 'update'], 'YYYYYYY'),
  row('deployment', ['read', 'update'], 'YYYYYYY', { account_id: A, project_id: P }),
  row('deployment', ['read', 'update'], 'YYYYYNY', { account_id: A, project_id: Q }),
  row('deployment', ['read'], 'NNNNNNN', { account_id: B, project_id: P }),
  row('deployment', ['review'], 'YYYYFFF'),
  row('deployment', ['review'], 'NNNNFFF', { account_id: B, project_id: P }),
  // Environments: everyone reads and locks; rules are not an API key's to change.
  row('environment', ['list', 'read', 'lock'], 'YYYYYYY'),
  row('environment', ['read', 'lock'], 'YYYYYNY', { account_id: A, project_id: Q }),
  row('environment', ['create', 'update', 'delete'], 'YYYYYFY'),
  row('environment', ['update'], 'NNNNNFN', { account_id: B, project_id: P }),
  row('configuration', ['list', 'read', 'reveal', 'create', 'update', 'delete'], 'YYYYYYY'),
  row('configuration', ['read', 'reveal', 'delete'], 'YYYYYNY', { account_id: A, project_id: Q }),
  // API keys never manage API keys, not even in their own project (403 before 404).
  row('api_key', ['list', 'read', 'create', 'rotate', 'revoke'], 'YYYYYFY'),
  row('api_key', ['read', 'revoke'], 'YYYYYFY', { account_id: A, project_id: P }),
  row('api_key', ['read', 'revoke'], 'NNNNNFN', { account_id: B, project_id: P }),
  // Users: never an API key; the owner rules; a user's own things; the operator's set-password.
  row('user', ['list', 'read', 'update'], 'YYYYYFY'),
  row('user', ['read', 'update'], 'YYYYYFY', user('owner')),
  row('user', ['read'], 'NNNNNFN', user('viewer', { account_id: B })),
  row('user', ['create', 'change_role', 'delete', 'issue_setup_link'], 'YYYYYFY'),
  row('user', ['create', 'delete', 'issue_setup_link'], 'YYYYYFY', user('admin')),
  row('user', ['create', 'delete', 'issue_setup_link'], 'FFFYFFY', user('owner')),
  row('user', ['change_role'], 'YYYYYFY', user('developer', { to: 'admin' })),
  row('user', ['change_role'], 'FFFYFFY', user('owner', { to: 'admin' })),
  row('user', ['change_role'], 'FFFYFFY', user('admin', { to: 'owner' })),
  row('user', ['change_role', 'delete'], 'NNNNNFN', user('owner', { account_id: B, to: 'viewer' })),
  row('user', ['read_self', 'change_own_password'], 'YYYYFFF'),
  row('user', ['set_password'], 'FFFFFFY'),
  // OAuth clients: never an API key; operator registration (first-party) is the operator's.
  row('oauth_client', ['list', 'read', 'create', 'rotate_secret', 'delete'], 'YYYYYFY'),
  row('oauth_client', ['read', 'delete'], 'NNNNNFN', { account_id: B }),
  row('oauth_client', ['create_as_operator'], 'FFFFFFY'),
  // Webhooks: never an API key.
  row('webhook', ['list', 'read', 'create', 'update', 'delete', 'rotate_secret', 'ping', 'redeliver'], 'YYYYYFY'),
  row('webhook', ['read', 'ping'], 'NNNNNFN', { account_id: B }),
  // The audit log: the account's, never an API key's; one project's for a principal confined to it.
  row('event', ['list'], 'YYYYYFY'),
  row('event', ['list_project'], 'YYYYYYY', { account_id: A, project_id: P }),
  row('event', ['list_project'], 'YYYYYNY', { account_id: A, project_id: Q }),
  // Accounts are the operator's; quotas are read by everyone, exceeded by the operator alone.
  row('account', ['list', 'read', 'delete'], 'FFFFFFY'),
  // A person's own memberships: users only.
  row('account', ['list_memberships'], 'YYYYFFF'),
  row('quota', ['read'], 'YYYYYYY'),
  row('quota', ['exceed'], 'FFFFFFY'),
  // Trust policies (docs/product.md §13): the account's people and apps, never a project's own credentials.
  row('trust_policy', ['list', 'read', 'create', 'delete'], 'YYYYYFY'),
  row('trust_policy', ['read', 'delete'], 'YYYYYFY', { account_id: A, project_id: P }),
  row('trust_policy', ['read', 'delete'], 'NNNNNFN', { account_id: B, project_id: P }),
];

/** A target as a test name: its account (A or B), its project (P or Q), a user's role. */
function label(target: object): string {
  const names: Record<string, string> = { [A]: 'A', [B]: 'B', [P]: 'P', [Q]: 'Q' };
  const t = target as { _id?: string; account_id?: string; project_id?: string | null; role?: Role; to?: Role };
  const project = t.project_id ?? (t._id && names[t._id] ? t._id : undefined);
  return [`account ${names[t.account_id ?? ''] ?? '?'}`, project ? `project ${names[project]}` : '', t.role ? `role ${t.role}${t.to ? ` → ${t.to}` : ''}` : ''].filter(Boolean).join(', ');
}

/** What the policy answers for one cell: Y, or the refusal's code as F or N. */
function decide(principal: PolicyPrincipal, resource: Resource, action: string, target?: object): Cell {
  try {
    authorize(principal, action as never, resource, target as never);
    return 'Y';
  } catch (err) {
    const { code, status } = err as AppError;
    if (code === 'forbidden' && status === 403) return 'F';
    if (code === 'not_found' && status === 404) return 'N';
    throw err;
  }
}

describe('the policy table', () => {
  for (const { resource, actions, target, expect: cells } of TABLE) {
    for (const action of actions) {
      const name = `${resource}:${action}${target ? ` on ${label(target)}` : ''}`;
      it(`${name} → ${cells}`, () => {
        const got = COLUMNS.map((column) => decide(principals[column], resource, action, target)).join('');
        expect(got).toBe(cells);
        // `can` is the same answer as a boolean.
        for (const [i, column] of COLUMNS.entries()) expect(can(principals[column], action as never, resource, target as never), column).toBe(cells[i] === 'Y');
      });
    }
  }

  it('covers every declared action of every resource', () => {
    const tabled = new Set(TABLE.flatMap((r) => r.actions.map((a) => `${r.resource}:${a}`)));
    const declared = declaredRules().map((r) => `${r.resource}:${r.action}`);
    expect(declared.filter((key) => !tabled.has(key))).toEqual([]);
    expect([...tabled].filter((key) => !declared.includes(key))).toEqual([]);
    expect(new Set(declaredRules().map((r) => r.resource))).toEqual(new Set(['project', 'deployment', 'environment', 'configuration', 'api_key', 'user', 'oauth_client', 'webhook', 'event', 'account', 'quota', 'trust_policy']));
  });

  it('an action nobody declared is refused to every kind', () => {
    for (const principal of Object.values(principals)) expect(decide(principal, 'project', 'archive_everything')).toBe('F');
  });

  it('refusals keep the messages and codes the services answered with before', () => {
    const message = (principal: PolicyPrincipal, resource: Resource, action: string, target?: object) => {
      try {
        authorize(principal, action as never, resource, target as never);
      } catch (err) {
        return (err as AppError).message;
      }
      return null;
    };
    expect(message(principals.api_key, 'user', 'list')).toBe('This operation is not available to api key credentials.');
    expect(message(principals.client, 'user', 'read_self')).toBe('This operation is not available to client credentials.');
    expect(message(principals.admin, 'user', 'delete', user('owner'))).toBe('Only an owner can grant the owner role or change or remove an owner.');
    expect(message(principals.client, 'user', 'create', user('owner'))).toBe('Only an owner can grant the owner role or change or remove an owner.');
    expect(message(principals.owner, 'account', 'delete')).toBe('Only an operator can delete a whole account.');
    expect(message(principals.admin, 'oauth_client', 'create_as_operator')).toBe('Only the operator can register a first-party client (slipway clients create --first-party).');
    expect(message(principals.api_key, 'project', 'read', { _id: Q, account_id: A })).toBe('No such project.');
    expect(message(principals.owner, 'webhook', 'read', { account_id: B })).toBe('No such webhook.');
  });

  it('the kind part alone (what a /v1 route judges before the scope) answers as the full rule does without a record', () => {
    for (const { resource, action, kinds } of declaredRules()) {
      for (const column of COLUMNS) {
        const principal = principals[column];
        let refused = false;
        try {
          authorizeKind(principal, action as never, resource);
        } catch (err) {
          expect((err as AppError).code).toBe('forbidden');
          refused = true;
        }
        expect(refused, `${column} ${resource}:${action}`).toBe(!kinds.includes(principal.kind));
        expect(can(principal, action as never, resource), `${column} ${resource}:${action} without a record`).toBe(!refused);
        expect(kindsAllowed(action as never, resource)).toEqual(kinds);
      }
    }
  });
});

describe('a token exchanged for a CI token (kind federated, docs/product.md §13)', () => {
  const ci: PolicyPrincipal = { kind: 'federated', id: 'tp_table', accountId: A, projectId: P, environments: ['production'] };
  const deployment = (environment: string, project = P, account = A) => ({ account_id: account, project_id: project, environment });

  it('may do, without a record, exactly what an API key of its project may', () => {
    for (const { resource, action } of declaredRules()) expect(decide(ci, resource, action), `${resource}:${action}`).toBe(decide(principals.api_key, resource, action));
  });

  it('deploys (creates and updates deployments) only to its environments, in its project only', () => {
    for (const action of ['create', 'update'] as const) {
      expect(decide(ci, 'deployment', action, deployment('production'))).toBe('Y');
      expect(decide(ci, 'deployment', action, deployment('staging'))).toBe('F');
      expect(decide(ci, 'deployment', action, deployment('production', Q))).toBe('N');
      expect(decide(ci, 'deployment', action, deployment('production', P, B))).toBe('N');
      expect(decide({ ...ci, environments: null }, 'deployment', action, deployment('staging'))).toBe('Y');
      // An API key is not limited to environments.
      expect(decide(principals.api_key, 'deployment', action, deployment('staging'))).toBe('Y');
    }
    expect(decide(ci, 'deployment', 'read', deployment('staging'))).toBe('Y');
  });
});

// ---------------------------------------------------------------------------------------------------------
// The same cells through /v1.

const env = useApiServer({ overrides: { apiRateLimitPerHour: 1_000_000 } });
let api: Api, tokens: Tokens, owner: TestUser, ownerToken: string;
const people = {} as Record<Role, TestUser>;
/** A token for each column, with the widest scope the credential can hold. */
const bearer = {} as Record<Exclude<Column, 'system'>, string>;
let projectP: string, projectQ: string;

beforeAll(async () => {
  ({ api, tokens, owner, adminToken: ownerToken } = env);
  people.owner = owner;
  for (const role of ['viewer', 'developer', 'admin'] as const) people[role] = await tokens.user(role, owner.accountId);
  const widest: Record<Role, string> = { viewer: 'read', developer: 'read write', admin: 'read write admin', owner: 'read write admin' };
  for (const role of ['viewer', 'developer', 'admin', 'owner'] as const) bearer[role] = await tokens.accessToken(people[role], widest[role]);
  bearer.client = (await tokens.forClient(owner.accountId, 'read write admin')).token;
  projectP = (await createProject(api, ownerToken)).id;
  projectQ = (await createProject(api, ownerToken)).id;
  const key = await api.post(`/v1/projects/${projectP}/api_keys`, { token: ownerToken, body: { name: 'table key', scopes: ['admin'] } });
  expect(key.status).toBe(201);
  bearer.api_key = key.body.key;
});

const SCOPE_OF_ROLE: Record<Column, number> = { viewer: 0, developer: 1, admin: 2, owner: 2, client: 2, api_key: 2, system: 2 };
const RANK = { read: 0, write: 1, admin: 2 } as const;

interface HttpCase {
  name: string;
  /** The policy cell it exercises. */
  resource: Resource;
  action: string;
  /** The record the route acts on, as the policy sees it. */
  target?: () => object;
  /** The cells of the table above for this action and record, in COLUMNS order. */
  expect: string;
  needs: keyof typeof RANK;
  success: number;
  request(): Promise<{ method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; body?: unknown }>;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now()}`;
async function member(role: Role): Promise<TestUser> {
  return await tokens.user(role, owner.accountId);
}
async function ownerMember(): Promise<string> {
  return (await member('owner')).id;
}

const HTTP: HttpCase[] = [
  { name: 'POST /v1/projects', expect: 'YYYYYFY', resource: 'project', action: 'create', needs: 'write', success: 201, request: async () => ({ method: 'POST', path: '/v1/projects', body: { name: unique('p') } }) },
  { name: 'GET /v1/projects/:P', expect: 'YYYYYYY', resource: 'project', action: 'read', target: () => ({ _id: projectP, account_id: owner.accountId }), needs: 'read', success: 200, request: async () => ({ method: 'GET', path: `/v1/projects/${projectP}` }) },
  { name: 'GET /v1/projects/:Q', expect: 'YYYYYNY', resource: 'project', action: 'read', target: () => ({ _id: projectQ, account_id: owner.accountId }), needs: 'read', success: 200, request: async () => ({ method: 'GET', path: `/v1/projects/${projectQ}` }) },
  {
    name: 'GET /v1/projects/:Q/deployments', expect: 'YYYYYNY',
    resource: 'deployment',
    action: 'list',
    target: () => ({ account_id: owner.accountId, project_id: projectQ }),
    needs: 'read',
    success: 200,
    request: async () => ({ method: 'GET', path: `/v1/projects/${projectQ}/deployments` }),
  },
  { name: 'GET /v1/projects/:P/api_keys', expect: 'YYYYYFY', resource: 'api_key', action: 'list', needs: 'admin', success: 200, request: async () => ({ method: 'GET', path: `/v1/projects/${projectP}/api_keys` }) },
  { name: 'GET /v1/users', expect: 'YYYYYFY', resource: 'user', action: 'list', needs: 'read', success: 200, request: async () => ({ method: 'GET', path: '/v1/users' }) },
  { name: 'GET /v1/users/me', expect: 'YYYYFFF', resource: 'user', action: 'read_self', needs: 'read', success: 200, request: async () => ({ method: 'GET', path: '/v1/users/me' }) },
  {
    name: 'POST /v1/users (an owner)', expect: 'FFFYFFY',
    resource: 'user',
    action: 'create',
    target: () => ({ account_id: owner.accountId, role: 'owner' }),
    needs: 'admin',
    success: 201,
    request: async () => ({ method: 'POST', path: '/v1/users', body: { email: `${unique('o')}@example.com`, name: 'O', role: 'owner' } }),
  },
  {
    name: 'POST /v1/users (a viewer)', expect: 'YYYYYFY',
    resource: 'user',
    action: 'create',
    target: () => ({ account_id: owner.accountId, role: 'viewer' }),
    needs: 'admin',
    success: 201,
    request: async () => ({ method: 'POST', path: '/v1/users', body: { email: `${unique('v')}@example.com`, name: 'V', role: 'viewer' } }),
  },
  {
    name: 'PATCH /v1/users/:owner (demote)', expect: 'FFFYFFY',
    resource: 'user',
    action: 'change_role',
    target: () => ({ account_id: owner.accountId, role: 'owner', to: 'admin' }),
    needs: 'admin',
    success: 200,
    request: async () => ({ method: 'PATCH', path: `/v1/users/${await ownerMember()}`, body: { role: 'admin' } }),
  },
  {
    name: 'DELETE /v1/users/:developer', expect: 'YYYYYFY',
    resource: 'user',
    action: 'delete',
    target: () => ({ account_id: owner.accountId, role: 'developer' }),
    needs: 'admin',
    success: 204,
    request: async () => ({ method: 'DELETE', path: `/v1/users/${(await member('developer')).id}` }),
  },
  { name: 'GET /v1/oauth_clients', expect: 'YYYYYFY', resource: 'oauth_client', action: 'list', needs: 'admin', success: 200, request: async () => ({ method: 'GET', path: '/v1/oauth_clients' }) },
  { name: 'GET /v1/webhooks', expect: 'YYYYYFY', resource: 'webhook', action: 'list', needs: 'admin', success: 200, request: async () => ({ method: 'GET', path: '/v1/webhooks' }) },
  { name: 'GET /v1/events', expect: 'YYYYYFY', resource: 'event', action: 'list', needs: 'admin', success: 200, request: async () => ({ method: 'GET', path: '/v1/events' }) },
];

describe('the same cells through /v1', () => {
  for (const cell of HTTP) {
    it(`${cell.name}: each credential is answered as the policy decides`, async () => {
      const answered: string[] = [];
      for (const column of COLUMNS) {
        if (column === 'system') continue;
        // Only credentials whose scope the route accepts: the refusal, if any, is the policy's.
        if (SCOPE_OF_ROLE[column] < RANK[cell.needs]) continue;
        const principal = { ...principals[column], accountId: owner.accountId, ...(column === 'api_key' ? { projectId: projectP } : {}) };
        const expected = cell.expect[COLUMNS.indexOf(column)] as Cell;
        // The policy itself gives the table's answer, and /v1 answers the same.
        expect(decide(principal, cell.resource, cell.action, cell.target?.()), column).toBe(expected);
        const { method, path, body } = await cell.request();
        const res = await api.request(method, path, { token: bearer[column], body });
        const status = expected === 'Y' ? cell.success : expected === 'F' ? 403 : 404;
        expect(res.status, `${column}: ${JSON.stringify(res.body)}`).toBe(status);
        if (expected !== 'Y') expect(res.body.error.code).toBe(expected === 'F' ? 'forbidden' : 'not_found');
        answered.push(`${column}=${res.status}`);
      }
      expect(answered.length).toBeGreaterThan(0);
    });
  }

  it('the OpenAPI document states the credential types the policy allows', async () => {
    const doc = api.document as { paths: Record<string, Record<string, { description?: string }>> };
    expect(doc.paths['/v1/users']!.get!.description).toContain('Only for user and client credentials.');
    expect(doc.paths['/v1/users/me']!.get!.description).toContain('Only for user credentials.');
    expect(doc.paths['/v1/events']!.get!.description).toContain('Only for user and client credentials.');
    expect(doc.paths['/v1/projects']!.post!.description).toContain('Only for user and client credentials.');
    expect(doc.paths['/v1/projects']!.get!.description ?? '').not.toContain('Only for');
  });
});
