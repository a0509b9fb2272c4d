import type { ApiClient, RequestOptions, RequestSpec } from './core.js';
import { paginate } from './pagination.js';
import type { Page, PageParams } from './types.js';

/** One operation as the generated resources (src/resources/) describe it. */
export interface Operation {
  method: RequestSpec['method'];
  /** The document's path template, e.g. `/v1/projects/{project_id}/deployments`. */
  path: string;
  /** The values of the template's `{…}` parameters, in order. */
  pathParams?: string[];
  query?: object | undefined;
  body?: unknown;
  /** The operation accepts `Idempotency-Key` (creates). */
  idempotent?: boolean;
}

/** A path segment from a caller's id (never lets an id change the path). */
function segment(id: unknown): string {
  if (typeof id !== 'string' || id === '') throw new TypeError('an id must be a non-empty string');
  return encodeURIComponent(id);
}

/** The path with its parameters filled in, each one encoded. */
export function fillPath(template: string, params: readonly string[] = []): string {
  let i = 0;
  const path = template.replace(/\{[^}]+\}/g, () => segment(params[i++]));
  if (i !== params.length) throw new TypeError(`${template} takes ${i} ids, got ${params.length}`);
  return path;
}

/** What every generated resource class builds on: one call, and the lazy iterator over a list. */
export abstract class Resource {
  readonly #api: ApiClient;

  constructor(api: ApiClient) {
    this.#api = api;
  }

  protected async call<T>(op: Operation, options?: RequestOptions): Promise<T> {
    // async: a bad id rejects the returned promise (a TypeError) rather than throwing at the call.
    return await this.#api.request<T>(
      { method: op.method, path: fillPath(op.path, op.pathParams), query: op.query as RequestSpec['query'], body: op.body, idempotent: op.idempotent ?? false },
      options,
    );
  }

  protected paginate<T>(op: Operation, options?: RequestOptions): AsyncGenerator<T, void, undefined> {
    // The path is checked now, not at the first iteration, so a bad id fails where it is passed.
    const path = fillPath(op.path, op.pathParams);
    const params = (op.query ?? {}) as PageParams;
    return paginate<T>((page) => this.#api.request<Page<T>>({ method: op.method, path, query: { ...params, ...page } as RequestSpec['query'] }, options), params);
  }
}
