import type { RouterContext } from '@koa/router';
import type { Next } from 'koa';
import type { ParameterObject } from 'openapi3-ts/oas31';
import type { ZodType } from 'zod';
import type { Principal, Scope } from '../domain/principal.ts';
import type { ErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** What the /v1 chain keeps on `ctx.state` as a request moves through it. */
export interface ApiState {
  requestId: string;
  log: Logger;
  /** Set by `authenticate`; every middleware after it may rely on it. */
  principal: Principal;
  /**
   * Set by `idempotent` on a route that creates a resource, when the request carries an
   * `Idempotency-Key`: the id the new resource must get (the same on every run of the request).
   */
  resourceId?: string;
  /**
   * Set by `authenticate`: checks the request's credential again (for a response that stays open, an
   * event stream) and answers the principal it acts as now, or throws as `authenticate` would (revoked,
   * expired, signed out). Revocations made elsewhere count within the revocation bound.
   */
  recheckCredential?: () => Promise<Principal>;
}

/**
 * The context a /v1 middleware or handler sees. `input` holds what `validate` parsed: typed path
 * parameters, query and body, never the raw request values.
 */
export type ApiContext<I = unknown> = RouterContext<ApiState> & { input: I };

/**
 * What a middleware adds to the OpenAPI operation of every route it is part of. Because the document is
 * built from the very chain that runs, it cannot claim a scope, a parameter or an error the code lacks.
 */
export interface OperationDraft {
  /** Required scope, from `requireScope`. */
  scope?: Scope;
  authenticated: boolean;
  params?: ZodType;
  query?: ZodType;
  body?: ZodType;
  /** Extra request headers (e.g. Idempotency-Key). */
  headers: ParameterObject[];
  /** Every error code the chain can answer with. */
  errors: Set<ErrorCode>;
  /** Notes appended to the operation's description (e.g. idempotency, pagination). */
  notes: string[];
  /** The operation returns a page (adds the Link header to the success response). */
  paginated?: boolean;
}

// Handlers are typed with their own input (ApiContext<{ body: CreateProject }>); the chain itself only
// needs to know they take a context.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiMiddleware = ((ctx: ApiContext<any>, next: Next) => unknown) & {
  /** Describes this step for the OpenAPI document. */
  document?: (op: OperationDraft) => void;
};

/** Attaches an OpenAPI contribution to a middleware. */
export function documented<M extends ApiMiddleware>(middleware: M, document: (op: OperationDraft) => void): M {
  middleware.document = document;
  return middleware;
}
