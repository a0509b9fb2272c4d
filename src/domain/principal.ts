export const ROLES = ['viewer', 'developer', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export type Scope = 'read' | 'write' | 'admin';

/** Scopes are nested: each includes the ones before it (docs/product.md §3). */
export const SCOPE_ORDER: readonly Scope[] = ['read', 'write', 'admin'];

/** The highest scope a role permits. */
export const ROLE_CEILING: Record<Role, Scope> = { viewer: 'read', developer: 'write', admin: 'admin', owner: 'admin' };

/** Expands a list of scope names to the set it permits (`write` → read + write). Unknown names are ignored. */
export function expandScopes(names: Iterable<string>): Set<Scope> {
  let top = -1;
  for (const name of names) top = Math.max(top, SCOPE_ORDER.indexOf(name as Scope));
  return new Set(SCOPE_ORDER.slice(0, top + 1));
}

/** Credential scopes capped by the role's ceiling. */
export function capByRole(scopes: Set<Scope>, role: Role): Set<Scope> {
  const ceiling = SCOPE_ORDER.indexOf(ROLE_CEILING[role]);
  return new Set([...scopes].filter((s) => SCOPE_ORDER.indexOf(s) <= ceiling));
}

/**
 * Who is calling /v1, whatever the credential. Every authenticator (OAuth access token, API key,
 * dashboard session) produces one of these; every route decides with it alone.
 */
export interface Principal {
  /** What the credential acts as. */
  kind: 'user' | 'api_key' | 'client' | 'system' | 'federated';
  /** usr_… for users, key_… for API keys, the client_id for client_credentials tokens, tp_… (the trust policy) for an exchanged CI token. */
  id: string;
  /** The tenant; every query is confined to it. */
  accountId: string;
  /** Effective scopes: the credential's scopes, capped by the user's role where there is a user. */
  scopes: Set<Scope>;
  /** The user's role, for kind 'user'. */
  role?: Role;
  /** For API keys and exchanged CI tokens: the one project the credential may touch. */
  projectId?: string;
  /** For exchanged CI tokens (docs/product.md §13): the environments it may deploy to; null or absent: all. */
  environments?: string[] | null;
  /** How it was proven. */
  credential: 'access_token' | 'api_key' | 'session' | 'operator';
  /** Identifier of the credential itself (grant id, key id, session id), for revocation and audit. */
  credentialId?: string;
}

/**
 * The operator acting through the admin CLI in one account: every scope, recorded in the audit log as
 * the system (`{type: "system", id: "cli"}`).
 */
export function systemPrincipal(accountId: string): Principal {
  return { kind: 'system', id: 'cli', accountId, scopes: new Set(SCOPE_ORDER), credential: 'operator' };
}

/** Who made a change, as the audit log and created records name it. */
export interface Actor {
  type: Principal['kind'];
  id: string;
}
