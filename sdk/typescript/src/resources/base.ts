import type { ApiClient, RequestOptions } from '../core.js';
import { paginate } from '../pagination.js';
import type { Page, PageParams } from '../types.js';

/** A path segment from a caller's id (never lets an id change the path). */
export const seg = (id: string): string => {
  if (typeof id !== 'string' || id === '') throw new TypeError('an id must be a non-empty string');
  return encodeURIComponent(id);
};

export abstract class Resource {
  protected readonly api: ApiClient;
  constructor(api: ApiClient) {
    this.api = api;
  }

  protected listPage<T>(path: string, params: object | undefined, options?: RequestOptions): Promise<Page<T>> {
    return this.api.request<Page<T>>({ method: 'GET', path, query: params as Record<string, string | number | boolean | undefined> }, options);
  }

  protected listEvery<T>(path: string, params: PageParams | undefined, options?: RequestOptions): AsyncGenerator<T, void, undefined> {
    return paginate<T>((p) => this.listPage<T>(path, p, options), params);
  }
}
