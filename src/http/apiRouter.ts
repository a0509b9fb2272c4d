import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import Router, { type RouterMiddleware } from '@koa/router';
import type { HeaderObject, ParameterObject, SecurityRequirementObject } from 'openapi3-ts/oas31';
import type { ZodObject, ZodType } from 'zod';
import type { ErrorCode } from '../errors.ts';
import type { ApiMiddleware, ApiState, OperationDraft } from './apiContext.ts';
import { COMMON_RESPONSE_HEADERS, errorResponses } from './openapi.ts';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** What a route says about itself beyond what its chain already tells the document. */
export interface RouteDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  success: {
    status: 200 | 201 | 202 | 204;
    description: string;
    schema?: ZodType;
    /**
     * The route also answers `Accept: text/event-stream` with Server-Sent Events: what its events are
     * (documented as the response's `text/event-stream` content).
     */
    eventStream?: string;
    headers?: Record<string, HeaderObject>;
  };
  /** Errors the handler (or its service) raises itself, e.g. `conflict`. */
  errors?: ErrorCode[];
}

const LINK_HEADER: HeaderObject = {
  description: 'RFC 8288 links to the `first`, `prev`, `next` and `last` pages.',
  schema: { type: 'string' },
};

/** Errors any /v1 route can answer with, whatever its chain. */
const ALWAYS: ErrorCode[] = ['rate_limited', 'internal_error', 'service_unavailable'];

/**
 * The /v1 router. A route is declared once, as its middleware chain in the order it runs
 * (`authenticate, requireScope('write'), validate({...}), handler`), plus a short description; the same
 * call mounts it on Koa and registers its OpenAPI operation, built from the chain's own metadata.
 */
export class ApiRouter {
  readonly router: Router<ApiState>;
  readonly registry: OpenAPIRegistry;
  readonly prefix: string;
  /** Every path template (split into segments, `:param` for a parameter) and its methods. */
  readonly #templates = new Map<string, { segments: string[]; methods: Set<string> }>();

  constructor(registry: OpenAPIRegistry, prefix = '/v1') {
    this.registry = registry;
    this.prefix = prefix;
    this.router = new Router<ApiState>({ prefix });
  }

  get(path: string, doc: RouteDoc, ...chain: ApiMiddleware[]): this {
    return this.add('get', path, doc, chain);
  }
  post(path: string, doc: RouteDoc, ...chain: ApiMiddleware[]): this {
    return this.add('post', path, doc, chain);
  }
  patch(path: string, doc: RouteDoc, ...chain: ApiMiddleware[]): this {
    return this.add('patch', path, doc, chain);
  }
  put(path: string, doc: RouteDoc, ...chain: ApiMiddleware[]): this {
    return this.add('put', path, doc, chain);
  }
  delete(path: string, doc: RouteDoc, ...chain: ApiMiddleware[]): this {
    return this.add('delete', path, doc, chain);
  }

  private add(method: Method, path: string, doc: RouteDoc, chain: ApiMiddleware[]): this {
    this.router.register(path, [method.toUpperCase()], chain as unknown as RouterMiddleware<ApiState>[]);
    const template = this.#templates.get(path) ?? { segments: path.split('/').slice(1), methods: new Set<string>() };
    template.methods.add(method.toUpperCase());
    if (method === 'get') template.methods.add('HEAD');
    this.#templates.set(path, template);
    this.registry.registerPath(this.describe(method, path, doc, chain));
    return this;
  }

  /**
   * The methods of the route a request path belongs to, or undefined for a path no route serves. When
   * several templates match, the most specific one wins (a literal segment beats a parameter, from the
   * left): `/users/me` is its own resource, not `/users/:user_id` with the id "me". So a 405 and its
   * `Allow`, and an OPTIONS answer, name only methods that exist for that path.
   */
  allowedMethods(requestPath: string): string[] | undefined {
    if (!requestPath.startsWith(`${this.prefix}/`)) return undefined;
    const segments = requestPath.slice(this.prefix.length).replace(/(.)\/$/, '$1').split('/').slice(1);
    let best: { segments: string[]; methods: Set<string> } | undefined;
    for (const template of this.#templates.values()) {
      if (template.segments.length !== segments.length) continue;
      if (!template.segments.every((t, i) => (t.startsWith(':') ? segments[i] !== '' : t === segments[i]))) continue;
      if (!best || moreSpecific(template.segments, best.segments)) best = template;
    }
    return best ? [...best.methods] : undefined;
  }

  private describe(method: Method, path: string, doc: RouteDoc, chain: ApiMiddleware[]): RouteConfig {
    const draft: OperationDraft = { authenticated: false, headers: [], errors: new Set(), notes: [] };
    for (const step of chain) step.document?.(draft);
    for (const code of [...(doc.errors ?? []), ...ALWAYS]) draft.errors.add(code);

    const successHeaders = { ...COMMON_RESPONSE_HEADERS, ...(draft.paginated ? { Link: LINK_HEADER } : {}), ...doc.success.headers };
    const success = {
      description: doc.success.description,
      headers: successHeaders,
      ...(doc.success.schema || doc.success.eventStream
        ? {
            content: {
              ...(doc.success.schema ? { 'application/json': { schema: doc.success.schema } } : {}),
              ...(doc.success.eventStream ? { 'text/event-stream': { schema: { type: 'string' as const, description: doc.success.eventStream } } } : {}),
            },
          }
        : {}),
    };
    const description = [doc.description, ...draft.notes].filter(Boolean).join('\n\n');
    const security: SecurityRequirementObject[] = draft.authenticated ? [{ oauth2: draft.scope ? [draft.scope] : [] }, { bearer: draft.scope ? [draft.scope] : [] }] : [];

    return {
      method,
      path: `${this.prefix}${path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
      operationId: doc.operationId,
      summary: doc.summary,
      ...(description ? { description } : {}),
      tags: doc.tags,
      security,
      ...(draft.scope ? { 'x-required-scope': draft.scope } : {}),
      ...(draft.headers.length ? { parameters: draft.headers as ParameterObject[] } : {}),
      request: {
        ...(draft.params ? { params: draft.params as ZodObject } : {}),
        ...(draft.query ? { query: draft.query as ZodObject } : {}),
        // A request without a body is read as `{}` (http/jsonBody.ts): the body is required only where `{}` is not valid.
        ...(draft.body ? { body: { required: !draft.body.safeParse({}).success, content: { 'application/json': { schema: draft.body } } } } : {}),
      },
      responses: { [String(doc.success.status)]: success, ...errorResponses(draft.errors) },
    };
  }
}

/** `a` is more specific than `b`: at the first position where one has a parameter and the other not, `a` has the literal. */
function moreSpecific(a: string[], b: string[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const aParam = a[i]!.startsWith(':');
    const bParam = b[i]!.startsWith(':');
    if (aParam !== bParam) return bParam;
  }
  return false;
}
