import type { Next } from 'koa';
import { forbidden, insufficientScope } from '../errors.ts';
import { documented, type ApiContext, type ApiMiddleware } from './apiContext.ts';
import { assertPrincipalKind, type Role, ROLE_CEILING, SCOPE_ORDER, type Principal, type Scope } from '../domain/principal.ts';

/**
 * docs/product.md §3: the credential must carry `scope` (scopes nest: admin ⊃ write ⊃ read) and, for a user, the
 * role must permit it. The role is checked first: a viewer asking for a wider token would still be
 * refused, so telling it `insufficient_scope` would mislead. Role failure → 403 `forbidden`; scope
 * failure → 403 `insufficient_scope` with `WWW-Authenticate: Bearer error="insufficient_scope", scope=…`.
 */
export function requireScope(scope: Scope): ApiMiddleware {
  const middleware = async (ctx: ApiContext, next: Next) => {
    assertScope(ctx.state.principal, scope);
    await next();
  };
  return documented(middleware, (op) => {
    op.scope = scope;
    op.errors.add('insufficient_scope').add('forbidden');
  });
}

/** The check of `requireScope`, for callers outside /v1 (the dashboard), so the rule is one piece of code. */
export function assertScope(principal: Principal, scope: Scope): void {
  const role: Role | undefined = principal.role;
  if (role && SCOPE_ORDER.indexOf(ROLE_CEILING[role]) < SCOPE_ORDER.indexOf(scope))
    throw forbidden(`Your role (${role}) does not allow this operation; it needs ${scope} access.`);
  if (!principal.scopes.has(scope)) throw insufficientScope(scope);
}

/** Whether `assertScope` would pass: for deciding which controls a page shows. */
export function hasScope(principal: Principal, scope: Scope): boolean {
  try {
    assertScope(principal, scope);
    return true;
  } catch {
    return false;
  }
}

/**
 * Credential-type rule (docs/product.md §3): only these kinds of principal may use the route; others → 403
 * `forbidden`. E.g. `allowPrincipals('user', 'client')` keeps API keys away from users, keys and clients.
 */
export function allowPrincipals(...kinds: Principal['kind'][]): ApiMiddleware {
  const middleware = async (ctx: ApiContext, next: Next) => {
    assertPrincipalKind(ctx.state.principal, kinds);
    await next();
  };
  return documented(middleware, (op) => {
    op.errors.add('forbidden');
    op.notes.push(`Only for ${kinds.map((k) => k.replace('_', ' ')).join(' and ')} credentials.`);
  });
}
