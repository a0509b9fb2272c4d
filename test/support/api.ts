/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies and the document are untyped JSON */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

// ajv-formats is CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (for malformed JSON, huge bodies, other content types). */
  rawBody?: string;
  headers?: Record<string, string>;
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
}

const DOC_ID = 'https://slipway.test/openapi.json';
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * HTTP client for /v1 tests that checks EVERY response it sees against the OpenAPI document the server
 * publishes: the status must be documented for the operation, the body must match the operation's
 * schema for that status (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), errors must have the error
 * shape, and the common headers must be there. A mismatch fails the test that made the request.
 */
export class Api {
  readonly base: string;
  readonly document: Record<string, any>;
  readonly #operations: Operation[];
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();
  /** How many responses were checked against the document. */
  checked = 0;

  private constructor(base: string, document: Record<string, any>) {
    this.base = base;
    this.document = document;
    this.#ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ ...document, $id: DOC_ID });
    this.#operations = [];
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries(item)) this.#operations.push({ method: method.toUpperCase(), template, pattern, responses: op.responses });
    }
  }

  static async connect(base: string): Promise<Api> {
    const response = await fetch(`${base}/openapi.json`);
    return new Api(base, (await response.json()) as Record<string, any>);
  }

  #validator(ref: string): ValidateFunction {
    let fn = this.#validators.get(ref);
    if (!fn) this.#validators.set(ref, (fn = this.#ajv.compile({ $ref: `${DOC_ID}#${ref}` })));
    return fn;
  }

  /** Throws unless the response conforms to the document. */
  conform(method: string, path: string, response: ApiResponse): void {
    const where = `${method} ${path} → ${response.status}`;
    expect(response.headers.get('x-request-id'), `${where}: X-Request-Id`).toBeTruthy();
    // With the database unreachable there is no count to report.
    if (path.startsWith('/v1') && response.status !== 503) {
      for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(response.headers.get(h), `${where}: ${h}`).toMatch(/^\d+$/);
    }
    if (response.status >= 400) {
      expect(response.headers.get('content-type'), `${where}: content type`).toMatch(/^application\/json/);
      const ok = this.#validator('/components/schemas/Error')(response.body);
      expect(ok, `${where}: error body ${JSON.stringify(response.body)}`).toBe(true);
      expect(response.body.error.status, `${where}: error.status`).toBe(response.status);
      expect(response.body.error.request_id, `${where}: request_id`).toBe(response.headers.get('x-request-id'));
    }
    const pathOnly = path.split('?')[0]!;
    // The path's own template: a literal segment beats a parameter (`/users/me` is not `/users/{user_id}`).
    const literals = (template: string) => template.split('/').map((segment) => (segment.startsWith('{') ? '0' : '1')).join('');
    const template = this.#operations
      .filter((o) => o.pattern.test(pathOnly))
      .map((o) => o.template)
      .sort((a, b) => literals(b).localeCompare(literals(a)))[0];
    const op = this.#operations.find((o) => o.method === method && o.template === template);
    if (!op) return;
    const documented = op.responses[String(response.status)];
    expect(documented, `${where}: status not documented for ${op.method} ${op.template}`).toBeDefined();
    if (documented?.content?.['application/json'] && response.status !== 204) {
      const ref = `/${pointer('paths', op.template, op.method.toLowerCase(), 'responses', String(response.status), 'content', 'application/json', 'schema')}`;
      const validate = this.#validator(ref);
      const ok = validate(response.body);
      expect(ok, `${where}: body does not match the document: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    this.checked++;
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text && response.headers.get('content-type')?.startsWith('application/json')) parsed = JSON.parse(text);
    const result: ApiResponse<T> = { status: response.status, headers: response.headers, body: parsed as T, text };
    if (method !== 'HEAD' && method !== 'OPTIONS') this.conform(method, path, result);
    return result;
  }

  get = <T = any>(path: string, options?: RequestOptions) => this.request<T>('GET', path, options);
  post = <T = any>(path: string, options?: RequestOptions) => this.request<T>('POST', path, options);
  patch = <T = any>(path: string, options?: RequestOptions) => this.request<T>('PATCH', path, options);
  delete = <T = any>(path: string, options?: RequestOptions) => this.request<T>('DELETE', path, options);
}

/**
 * What a caller can compare between two answers, to show they tell nothing apart: status, header names,
 * body keys and value types, the Location with its id masked.
 */
export function answerShape(res: ApiResponse) {
  const headers = [...res.headers.keys()].filter((h) => !['date', 'x-request-id', 'content-length', 'etag', 'location'].includes(h)).sort();
  const body = Object.fromEntries(Object.entries(res.body as Record<string, unknown>).map(([k, v]) => [k, v === null ? 'null' : typeof v]));
  return { status: res.status, headers, body, location: res.headers.get('location')?.replace(/[a-z]+_[A-Za-z0-9]+$/, '…') };
}
