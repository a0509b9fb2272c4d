import { compileErrors, validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.ts';
import { Api, type ApiResponse } from '../support/api.ts';
import { useTestServer } from '../support/fixtures.ts';

const server = useTestServer();
let api: Api;

beforeAll(async () => {
  api = await Api.connect(server.url);
});

type Operation = { security?: Record<string, string[]>[]; responses: Record<string, { content?: { 'application/json'?: { examples?: Record<string, { value: unknown }> } } }>; 'x-required-scope'?: string };
const operations = () =>
  Object.entries(api.document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

describe('/openapi.json', () => {
  it('is served without credentials and is a valid OpenAPI 3.1 document', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('documents the routes the API serves, each with its scope and every error it can produce', async () => {
    const routes = operations().map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    // Other resources add their own routes; these are the projects and deployments ones.
    for (const route of [
        'GET /v1/projects',
        'POST /v1/projects',
        'GET /v1/projects/{project_id}',
        'PATCH /v1/projects/{project_id}',
        'DELETE /v1/projects/{project_id}',
        'GET /v1/projects/{project_id}/deployments',
        'POST /v1/projects/{project_id}/deployments',
        'GET /v1/projects/{project_id}/deployments/{deployment_id}',
        'PATCH /v1/projects/{project_id}/deployments/{deployment_id}',
    ])
      expect(routes).toContain(route);
    const scopes: Record<string, string> = {
      'GET /v1/projects': 'read',
      'POST /v1/projects': 'write',
      'DELETE /v1/projects/{project_id}': 'admin',
      'PATCH /v1/projects/{project_id}/deployments/{deployment_id}': 'write',
      // Configurations, API keys, users, OAuth clients and the audit log.
      'GET /v1/projects/{project_id}/configurations': 'read',
      'POST /v1/projects/{project_id}/configurations': 'write',
      'GET /v1/projects/{project_id}/configurations/{configuration_id}': 'read',
      'PATCH /v1/projects/{project_id}/configurations/{configuration_id}': 'write',
      'DELETE /v1/projects/{project_id}/configurations/{configuration_id}': 'write',
      'GET /v1/projects/{project_id}/api_keys': 'admin',
      'POST /v1/projects/{project_id}/api_keys': 'admin',
      'GET /v1/projects/{project_id}/api_keys/{api_key_id}': 'admin',
      'DELETE /v1/projects/{project_id}/api_keys/{api_key_id}': 'admin',
      'POST /v1/projects/{project_id}/api_keys/{api_key_id}/rotate': 'admin',
      'GET /v1/users': 'read',
      'GET /v1/users/me': 'read',
      'POST /v1/users/me/password': 'read',
      'GET /v1/users/{user_id}': 'read',
      'POST /v1/users': 'admin',
      'PATCH /v1/users/{user_id}': 'admin',
      'DELETE /v1/users/{user_id}': 'admin',
      'GET /v1/oauth_clients': 'admin',
      'POST /v1/oauth_clients': 'admin',
      'GET /v1/oauth_clients/{client_id}': 'admin',
      'DELETE /v1/oauth_clients/{client_id}': 'admin',
      'POST /v1/oauth_clients/{client_id}/rotate_secret': 'admin',
      'GET /v1/events': 'admin',
    };
    for (const route of Object.keys(scopes)) expect(routes, route).toContain(route);
    for (const { method, path, op } of operations()) {
      const name = `${method.toUpperCase()} ${path}`;
      if (scopes[name]) expect(op['x-required-scope'], name).toBe(scopes[name]);
      expect(op.security, name).toEqual([{ oauth2: [op['x-required-scope']] }, { bearer: [op['x-required-scope']] }]);
      for (const status of ['401', '403', '429', '500', '503']) expect(op.responses[status], `${name} ${status}`).toBeDefined();
      // Every error response lists its codes as examples, each a valid error body for that status.
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => Number(s) >= 400)) {
        const examples = response.content?.['application/json']?.examples ?? {};
        expect(Object.keys(examples).length, `${name} ${status}`).toBeGreaterThan(0);
        for (const [code, example] of Object.entries(examples)) {
          expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(Number(status));
          expect((example.value as { error: { code: string } }).error.code).toBe(code);
          api.conform('GET', '/nowhere', { status: Number(status), headers: new Headers({ 'x-request-id': (example.value as { error: { request_id: string } }).error.request_id, 'content-type': 'application/json' }), body: example.value, text: '' });
        }
      }
    }
    const create = (api.document.paths as Record<string, Record<string, Operation>>)['/v1/projects']!.post!;
    const codes = Object.values(create.responses).flatMap((r) => Object.keys(r.content?.['application/json']?.examples ?? {}));
    for (const code of ['unauthorized', 'invalid_token', 'insufficient_scope', 'forbidden', 'conflict', 'payload_too_large', 'unsupported_media_type', 'validation_failed', 'idempotency_key_reused', 'rate_limited'])
      expect(codes, code).toContain(code);
  });
});

describe('/docs', () => {
  it('renders every operation as a readable page without scripts, credentials or outside resources', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="https?:\/\//);
    for (const { method, path } of operations()) expect(html).toContain(`<span class="method m-${method}">${method.toUpperCase()}</span> <code>${path}</code>`);
    for (const text of ['Create a project', 'needs scope <code>admin</code>', 'Idempotency-Key', 'invalid_transition', 'project_not_active', 'Deployment']) expect(html).toContain(text);
    const css = await fetch(`${server.url}/docs/docs.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });
});

describe('the conformance check used by every /v1 test', () => {
  const fake = (status: number, body: unknown): ApiResponse => ({
    status,
    body,
    text: JSON.stringify(body),
    headers: new Headers({ 'x-request-id': 'r-12345678', 'content-type': 'application/json', 'ratelimit-limit': '1', 'ratelimit-remaining': '1', 'ratelimit-reset': '1' }),
  });
  it('accepts a conforming response and rejects bodies and statuses the document does not describe', () => {
    const page = { data: [], pagination: { page: 1, per_page: 20, total: 0 } };
    expect(() => api.conform('GET', '/v1/projects', fake(200, page))).not.toThrow();
    expect(() => api.conform('GET', '/v1/projects', fake(200, { data: 'nope', pagination: {} }))).toThrow(/does not match/);
    expect(() => api.conform('GET', '/v1/projects', fake(201, page))).toThrow(/not documented/);
    expect(() => api.conform('GET', '/v1/projects', fake(404, { error: { code: 'not_found' } }))).toThrow(/error body/);
  });
});
