import type { Next } from 'koa';
import { forbidden, insufficientScope } from '../errors.ts';
import { documented, type ApiContext, type ApiMiddleware } from './apiContext.ts';
import { type Role, ROLE_CEILING, SCOPE_ORDER, type Principal, type Scope } from '../domain/principal.ts';
import { authorizeKind, kindsAllowed, type Action, type Resource } from '../domain/policy.ts';

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
 * The policy's credential-type rule for `action` on `resource` (domain/policy.ts), judged before the
 * scope and before the request is read: a kind of principal no rule lets do it → 403 `forbidden`
 * (e.g. an API key on users, keys, clients, webhooks, the audit log), whatever its scopes. The service
 * asks the policy again with the record; this step exists so the answer does not depend on the scope
 * or the input, and so the OpenAPI document states it.
 */
export function authorizeFor<R extends Resource>(action: Action<R>, resource: R): ApiMiddleware {
  const middleware = async (ctx: ApiContext, next: Next) => {
    authorizeKind(ctx.state.principal, action, resource);
    await next();
  };
  // The operator never calls /v1: the document names the credentials a client can hold.
  const kinds = kindsAllowed(action, resource).filter((kind) => kind !== 'system');
  return documented(middleware, (op) => {
    op.errors.add('forbidden');
    op.notes.push(`Only for ${kinds.map((k) => k.replace('_', ' ')).join(' and ')} credentials.`);
  });
}
