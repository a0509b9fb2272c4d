import { forbidden, notFound } from '../errors.ts';
import { environmentAllowed } from './federation.ts';
import type { Principal, Role } from './principal.ts';

/**
 * Who may do what to which resource (docs/product.md §3), for every kind of principal: a user (by role),
 * an API key (one project), a confidential client acting for its account (client_credentials), the
 * operator (the admin CLI, `system`). The rules are declared below, per resource, with `allow`; the
 * services ask `authorize` (throws) before acting, the dashboard may ask `can` (a boolean) to show or hide
 * a control, and a /v1 route that must refuse a kind of credential before it reads the request asks
 * `authorizeKind` (see http/requireScope.ts `authorizeFor`).
 *
 * Scopes are not judged here: a credential's scope (and a user's role ceiling over it) is the route's
 * `requireScope`, the dashboard's `assertScope`. The policy is the rest: which kinds of principal, the
 * owner rules, the operator's own operations, and confinement (the principal's account; an API key's
 * project).
 */

export type Kind = Principal['kind'];
const KINDS: readonly Kind[] = ['user', 'client', 'api_key', 'system', 'federated'];

/** What the policy reads of a principal. */
export type PolicyPrincipal = Pick<Principal, 'kind' | 'accountId'> & Partial<Pick<Principal, 'id' | 'role' | 'projectId' | 'environments'>>;

interface InAccount {
  account_id: string;
}
interface InProject extends InAccount {
  project_id: string;
}

/**
 * Every resource: what a rule may be asked about it (its target: the record, or for `create` the record
 * it would be) and its actions.
 */
export interface Resources {
  project: { target: InAccount & { _id: string }; action: 'list' | 'read' | 'create' | 'update' | 'delete' };
  /** `environment`: where the deployment goes (an exchanged CI token may be limited to some). `review`: approve or reject a waiting deployment (docs/product.md §9; who is a reviewer is the environment's rule). */
  deployment: { target: InProject & { environment?: string }; action: 'list' | 'read' | 'create' | 'update' | 'review' };
  /** docs/product.md §9: `update` and `delete` change the rules; `lock` locks and unlocks. */
  environment: { target: InProject; action: 'list' | 'read' | 'create' | 'update' | 'delete' | 'lock' };
  configuration: { target: InProject; action: 'list' | 'read' | 'reveal' | 'create' | 'update' | 'delete' };
  api_key: { target: InProject; action: 'list' | 'read' | 'create' | 'rotate' | 'revoke' };
  /** `role` is the user's (or, for `create`, the new user's); `to` the role a `change_role` gives. */
  user: {
    target: InAccount & { _id?: string; role: Role; to?: Role | undefined };
    action: 'list' | 'read' | 'read_self' | 'create' | 'update' | 'change_role' | 'delete' | 'issue_setup_link' | 'set_password' | 'change_own_password';
  };
  oauth_client: { target: InAccount; action: 'list' | 'read' | 'create' | 'create_as_operator' | 'rotate_secret' | 'delete' };
  webhook: { target: InAccount; action: 'list' | 'read' | 'create' | 'update' | 'delete' | 'rotate_secret' | 'ping' | 'redeliver' };
  /** `list`: the account's audit log. `list_project`: one project's events, for a principal confined to it. */
  event: { target: InAccount & { project_id: string | null }; action: 'list' | 'list_project' };
  account: { target: { _id: string }; action: 'list' | 'read' | 'delete' | 'list_memberships' };
  /** `exceed`: create beyond the account's quota (the operator's creations are counted, never refused). */
  quota: { target: InAccount; action: 'read' | 'exceed' };
  /** docs/product.md §13: which CI identities may exchange their tokens for one acting as the project. */
  trust_policy: { target: InProject; action: 'list' | 'read' | 'create' | 'delete' };
}

export type Resource = keyof Resources;
export type Action<R extends Resource> = Resources[R]['action'];
export type Target<R extends Resource> = Resources[R]['target'];

/** A rule's condition on the target. Without a target (a question about the resource in general) it receives undefined. */
type Condition<R extends Resource> = (actor: PolicyPrincipal, target: Target<R> | undefined) => boolean;

interface Rule {
  kinds: readonly Kind[];
  condition?: (actor: PolicyPrincipal, target: unknown) => boolean;
  /** The 403 message when this rule refuses (its condition fails, or, for a rule without one, the kind is not among its kinds). */
  refusal?: string;
}

const rules = new Map<string, Rule[]>();
const ruleKey = (resource: Resource, action: string) => `${resource}:${action}`;

/**
 * Declares that principals of `kinds` may do `actions` to `resource`, when `when` holds for the target
 * (if given). Several rules for one action: any that allows, allows.
 */
export function allow<R extends Resource>(kinds: readonly Kind[], actions: readonly Action<R>[], resource: R, options: { when?: Condition<R>; refusal?: string } = {}): void {
  for (const action of actions) {
    const key = ruleKey(resource, action);
    const rule: Rule = { kinds, ...(options.when ? { condition: options.when as Rule['condition'] } : {}), ...(options.refusal ? { refusal: options.refusal } : {}) };
    rules.set(key, [...(rules.get(key) ?? []), rule]);
  }
}

/** The project a target belongs to, for the resources inside a project. */
function projectOf(resource: Resource, target: object): string | null | undefined {
  if (resource === 'project') return (target as Target<'project'>)._id;
  return 'project_id' in target ? (target as { project_id: string | null }).project_id : undefined;
}

/**
 * docs/product.md §3, §5: a record in another account, or for an API key in another project, does not
 * exist for the principal (404, never 403: existence is not revealed). The operator's accounts are not
 * records of an account.
 */
function confinementRefusal(actor: PolicyPrincipal, resource: Resource, target: object | undefined): Error | null {
  if (!target || resource === 'account') return null;
  if ((target as InAccount).account_id !== actor.accountId) return notFound(resource);
  const project = projectOf(resource, target);
  if (actor.projectId && project !== undefined && project !== actor.projectId) return notFound(resource);
  return null;
}

/** The refusal of a kind no rule of the action lists: a rule's own words if it has them, else the general one. */
function refuseKind(kind: Kind, declared: readonly Rule[]): Error {
  const stated = declared.find((rule) => !rule.condition && rule.refusal)?.refusal;
  return stated ? forbidden(stated) : forbidden(`This operation is not available to ${kind.replace('_', ' ')} credentials.`);
}

/**
 * The kind first (a credential type that may never do it is refused whatever the record), then
 * confinement (404), then the rules' conditions on the target.
 */
function refusalOf<R extends Resource>(actor: PolicyPrincipal, action: Action<R>, resource: R, target?: Target<R>): Error | null {
  const declared = rules.get(ruleKey(resource, action)) ?? [];
  const forKind = declared.filter((rule) => rule.kinds.includes(actor.kind));
  if (forKind.length === 0) return refuseKind(actor.kind, declared);
  const confined = confinementRefusal(actor, resource, target);
  if (confined) return confined;
  const refusing = forKind.filter((rule) => rule.condition && !rule.condition(actor, target));
  if (refusing.length < forKind.length) return null;
  return forbidden(refusing.find((rule) => rule.refusal)?.refusal ?? 'You are not allowed to do this.');
}

/**
 * Throws unless the principal may do `action` to `resource` (to `target`, when the decision depends on
 * the record): 404 `not_found` for a target outside its account or an API key's project, 403
 * `forbidden` otherwise.
 */
export function authorize<R extends Resource>(actor: PolicyPrincipal, action: Action<R>, resource: R, target?: Target<R>): void {
  const refusal = refusalOf(actor, action, resource, target);
  if (refusal) throw refusal;
}

/** Whether `authorize` would pass: for showing or hiding a control. */
export function can<R extends Resource>(actor: PolicyPrincipal, action: Action<R>, resource: R, target?: Target<R>): boolean {
  return refusalOf(actor, action, resource, target) === null;
}

/** The kinds of principal some rule lets do `action` to `resource` (whatever its condition decides on a record). */
export function kindsAllowed<R extends Resource>(action: Action<R>, resource: R): Kind[] {
  const kinds = new Set((rules.get(ruleKey(resource, action)) ?? []).flatMap((rule) => rule.kinds));
  return KINDS.filter((kind) => kinds.has(kind));
}

/** Every declared (resource, action) with the kinds some rule lets do it: the table, for tests and documentation. */
export function declaredRules(): { resource: Resource; action: string; kinds: Kind[] }[] {
  return [...rules.keys()].map((key) => {
    const [resource, action] = key.split(':') as [Resource, string];
    return { resource, action, kinds: kindsAllowed(action as Action<typeof resource>, resource) };
  });
}

/**
 * The kind part of `authorize` alone: refuses (403 `forbidden`) a principal whose kind no rule lets do
 * `action` to `resource`, before anything about the record is known. For a /v1 route that must refuse
 * a credential type before judging its scope or reading the request.
 */
export function authorizeKind<R extends Resource>(actor: Pick<PolicyPrincipal, 'kind'>, action: Action<R>, resource: R): void {
  if (!kindsAllowed(action, resource).includes(actor.kind)) throw refuseKind(actor.kind, rules.get(ruleKey(resource, action)) ?? []);
}

/**
 * What a principal may see, as a query's bounds: its account, and for an API key its one project. Every
 * service query is confined by it (or by the account alone where records have no project).
 */
export function confinement(actor: PolicyPrincipal): { accountId: string; projectId?: string } {
  return actor.projectId ? { accountId: actor.accountId, projectId: actor.projectId } : { accountId: actor.accountId };
}

// ---------------------------------------------------------------------------------------------------------
// The rules. docs/ARCHITECTURE.md ("Who may do what") has them as a table; keep the two in step.

const EVERYONE = KINDS;
/**
 * docs/product.md §3: an API key acts as its one project, never as anyone in the account; so does a CI
 * token from a trust policy (§13, kind `federated`).
 */
const NOT_API_KEYS: readonly Kind[] = ['user', 'client', 'system'];
const NOT_FEDERATED: readonly Kind[] = ['user', 'client', 'api_key', 'system'];
const OPERATOR: readonly Kind[] = ['system'];

/**
 * The role the owner rules judge: a user's own. A confidential client acting for the account counts as an
 * admin, never an owner. (The operator has its own rules and is not held to them.)
 */
const actingRole = (actor: PolicyPrincipal): Role => actor.role ?? 'admin';
const touchesOwner = (user: Target<'user'> | undefined) => user !== undefined && (user.role === 'owner' || user.to === 'owner');
const ONLY_OWNERS = 'Only an owner can grant the owner role or change or remove an owner.';

// Projects: everyone, confined (an API key sees its own project). Creating one is the account's, not a key's.
allow(EVERYONE, ['list', 'read', 'update', 'delete'], 'project');
allow(NOT_API_KEYS, ['create'], 'project');

// Inside a project: everyone who sees the project (an API key: its own). Revealing secrets needs the
// admin scope, which an API key may carry (judged by the route).
allow(EVERYONE, ['list', 'read'], 'deployment');
allow(NOT_FEDERATED, ['create', 'update'], 'deployment');
// docs/product.md §13: a CI token from a trust policy deploys only to the policy's environments.
allow(['federated'], ['create', 'update'], 'deployment', {
  when: (actor, deployment) => deployment?.environment === undefined || environmentAllowed(actor.environments, deployment.environment),
  refusal: 'This token may not deploy to this environment.',
});
allow(EVERYONE, ['list', 'read', 'reveal', 'create', 'update', 'delete'], 'configuration');
// docs/product.md §9: a review is a person's judgement (API keys and clients are refused); which people
// may review is the environment's `reviewers`. Protection rules are set by people and clients with the
// admin scope, never by a project's API key (a deployer must not lift the rules it deploys under);
// locking is everyone's who sees the project (with the write scope).
allow(['user'], ['review'], 'deployment', { refusal: 'Only a person can review a deployment.' });
allow(EVERYONE, ['list', 'read', 'lock'], 'environment');
allow(NOT_API_KEYS, ['create', 'update', 'delete'], 'environment', { refusal: 'An API key cannot change an environment’s rules.' });

// API keys never manage API keys, their own included.
allow(NOT_API_KEYS, ['list', 'read', 'create', 'rotate', 'revoke'], 'api_key');

// Users: never an API key. Only an owner grants the owner role or changes or removes an owner; the
// operator is not held to it. A user's own record and password are theirs alone; setting a password
// without the current one is the operator's (a locked-out sole owner's way back in).
allow(NOT_API_KEYS, ['list', 'read', 'update'], 'user');
allow(['user', 'client'], ['create', 'change_role', 'delete', 'issue_setup_link'], 'user', { when: (actor, user) => !touchesOwner(user) || actingRole(actor) === 'owner', refusal: ONLY_OWNERS });
allow(OPERATOR, ['create', 'change_role', 'delete', 'issue_setup_link'], 'user');
allow(['user'], ['read_self', 'change_own_password'], 'user');
allow(OPERATOR, ['set_password'], 'user', { refusal: 'Only the operator can set a password without the current one.' });

// OAuth clients: never an API key; a first-party client (no consent page) only by the operator.
allow(NOT_API_KEYS, ['list', 'read', 'create', 'rotate_secret', 'delete'], 'oauth_client');
allow(OPERATOR, ['create_as_operator'], 'oauth_client', { refusal: 'Only the operator can register a first-party client (slipway clients create --first-party).' });

// Webhooks: never an API key.
allow(NOT_API_KEYS, ['list', 'read', 'create', 'update', 'delete', 'rotate_secret', 'ping', 'redeliver'], 'webhook');

// The audit log: the account's, never an API key's (a key acts as one project, not the account). A
// principal confined to one project reads that project's events.
allow(NOT_API_KEYS, ['list'], 'event');
allow(EVERYONE, ['list_project'], 'event');

// Accounts (tenants) are the operator's alone.
allow(OPERATOR, ['list', 'read'], 'account', { refusal: 'Accounts are the operator’s alone.' });
allow(OPERATOR, ['delete'], 'account', { refusal: 'Only an operator can delete a whole account.' });
// docs/product.md §11: a person lists the accounts they are a member of (GET /v1/accounts); a client
// or an API key is no person.
allow(['user'], ['list_memberships'], 'account', { refusal: 'Only a signed-in person has memberships.' });

// Trust policies (docs/product.md §13): the account's people and apps, never a project's own credentials.
allow(NOT_API_KEYS, ['list', 'read', 'create', 'delete'], 'trust_policy');

// Quotas: every principal of the account sees them; only the operator creates beyond them.
allow(EVERYONE, ['read'], 'quota');
allow(OPERATOR, ['exceed'], 'quota');
