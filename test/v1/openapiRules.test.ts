/* eslint-disable @typescript-eslint/no-explicit-any -- the document is untyped JSON */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { createProject, expectRefused, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { Tokens, TestUser } from '../support/tokens.ts';

/*
 * The OpenAPI document states every rule the server enforces: for each rule, values on both sides of it
 * are sent to the server, and the server's verdict must equal the document's (checked with ajv).
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const env = useApiServer({ overrides: { webhookAllowLoopback: true } });
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, token: string;
let ajv: Ajv2020;
beforeAll(() => {
  ({ server, api, tokens, owner, adminToken: token } = env);
  ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...api.document, $id: 'doc' });
});

const op = (path: string, method: string) => api.document.paths[path][method];
const bodySchemaRef = (path: string, method: string): string => op(path, method).requestBody.content['application/json'].schema.$ref;
/** Does the document accept `value` as the request body of the operation? */
const documentAccepts = (path: string, method: string, value: unknown) => ajv.validate({ $ref: `doc${bodySchemaRef(path, method)}` }, value);
let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}-${Math.random().toString(36).slice(2, 8)}`;

describe('the document and the server agree, value by value', () => {
  it('branch names (git check-ref-format)', async () => {
    const project = await createProject(api, token);
    const path = `/v1/projects/${project.id}/deployments`;
    const branches = ['main', 'feature/login', 'release-1.2', 'a', 'x'.repeat(255), 'ü/日本', 'v1.0@x', '@', 'HEAD', '-x', '/x', 'x/', 'a//b', 'a..b', 'a@{b', '.x', 'a/.b', 'x.lock', 'a.lock/b', 'x.', 'a b', 'a~b', 'a^b', 'a:b', 'a?b', 'a*b', 'a[b', 'a\\b', 'a\tb', 'main\n', '', 'x'.repeat(256)];
    for (const branch of branches) {
      const body = { environment: 'production', branch };
      const expected = documentAccepts('/v1/projects/{project_id}/deployments', 'post', body);
      const res = await api.post(path, { token, body });
      expect(res.status, `${JSON.stringify(branch)}: document says ${expected}`).toBe(expected ? 201 : 422);
    }
  });

  it('deployment URLs', async () => {
    const project = await createProject(api, token);
    const created = await api.post(`/v1/projects/${project.id}/deployments`, { token, body: { environment: 'production', branch: 'main' } });
    const path = `/v1/projects/${project.id}/deployments/${created.body.id}`;
    const urls = ['https://app.example.com', 'http://127.0.0.1:8080/x?y=1#z', 'HTTPS://A.B/', 'https://a.io:65535', 'https://x-y.z/%7e~', 'ftp://a.b', 'javascript:alert(1)', 'https://', 'https://a.b:65536', 'https://user:pw@a.b', 'https://a b.c', 'https://1.2.3.999', 'https://-a.b', 'https://a.b/\u00e9', 'app.example.com', 'https://a.b/x\n', `https://a.b/${'x'.repeat(2040)}`];
    for (const url of urls) {
      const body = { status: 'queued', url };
      const expected = documentAccepts('/v1/projects/{project_id}/deployments/{deployment_id}', 'patch', body);
      const res = await api.patch(path, { token, body });
      expect(res.status, `${JSON.stringify(url)}: document says ${expected}`).toBe(expected ? 200 : 422);
    }
  });

  it('project, user, key and client names: trimmed, then 1–100 characters', async () => {
    const s = Math.random().toString(36).slice(2, 8);
    const names = [`ok ${s}`, `  padded ${s}  `, `\tx${s}\n`, '', '   ', `a\u0001b${s}`, s + 'x'.repeat(94), ` ${s}${'y'.repeat(94)} `, s + 'x'.repeat(95), s + '\u{1f680}'.repeat(94), s + '\u{1f680}'.repeat(95), `a${s}\u0085`];
    for (const name of names) {
      const body = { name };
      const expected = documentAccepts('/v1/projects', 'post', body);
      const res = await api.post('/v1/projects', { token, body });
      expect(res.status, `${JSON.stringify(body.name).slice(0, 40)}: document says ${expected}`).toBe(expected ? 201 : 422);
      if (expected) expect(res.body.name).toBe(body.name.trim());
    }
  });

  it('webhook descriptions: trimmed, then at most 500 characters, no control characters', async () => {
    const created = await api.post('/v1/webhooks', { token, body: { url: 'http://127.0.0.1:9/hook', events: ['*'] } });
    expect(created.status).toBe(201);
    const path = `/v1/webhooks/${created.body.id}`;
    const descriptions = ['Release notifications', '', '   ', '  padded  ', 'line\nbreak', 'tab\there', '\tedge\n', 'bell\u0007', 'c1\u0085x', 'x'.repeat(500), ` ${'x'.repeat(500)} `, 'x'.repeat(501), '\u{1f680}'.repeat(500), '\u{1f680}'.repeat(501), null];
    for (const description of descriptions) {
      const body = { description };
      const expected = documentAccepts('/v1/webhooks/{webhook_id}', 'patch', body);
      const res = await api.patch(path, { token, body });
      expect(res.status, `${JSON.stringify(description)?.slice(0, 40)}: document says ${expected}`).toBe(expected ? 200 : 422);
      if (expected) expect(res.body.description).toBe(typeof description === 'string' ? description.trim() : null);
    }
  });

  it('OAuth client fields that depend on each other', async () => {
    const bodies = [
      { client_name: 'spa', redirect_uris: ['https://a.example/cb'] },
      { client_name: 'no redirect' },
      { client_name: 'cc', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' },
      { client_name: 'cc public', grant_types: ['client_credentials'] },
      { client_name: 'refresh alone', grant_types: ['refresh_token'], redirect_uris: ['https://a.example/cb'] },
      { client_name: 'code', grant_types: ['authorization_code'], redirect_uris: [] },
      { client_name: 'scopes', redirect_uris: ['https://a.example/cb'], scope: ' read  write ' },
      { client_name: 'bad scope', redirect_uris: ['https://a.example/cb'], scope: 'read delete' },
    ];
    for (const body of bodies) {
      const expected = documentAccepts('/v1/oauth_clients', 'post', body);
      const res = await api.post('/v1/oauth_clients', { token, body });
      expect(res.status, `${JSON.stringify(body)}: document says ${expected}`).toBe(expected ? 201 : 422);
    }
  });
});

describe('PATCH bodies must change something', () => {
  it('every PATCH body says minProperties (or a required field), and {} is refused', async () => {
    const patches = Object.entries(api.document.paths as Record<string, Record<string, any>>).filter(([, item]) => item.patch);
    expect(patches.length).toBeGreaterThanOrEqual(4);
    for (const [path] of patches) {
      const schema = api.document.components.schemas[bodySchemaRef(path, 'patch').split('/').pop()!];
      expect(schema.minProperties === 1 || (schema.required ?? []).length > 0, path).toBe(true);
      expect(documentAccepts(path, 'patch', {}), path).toBe(false);
    }
    const project = await createProject(api, token);
    expectRefused(await api.patch(`/v1/projects/${project.id}`, { token, body: {} }), 422, 'validation_failed');
    const config = await api.post(`/v1/projects/${project.id}/configurations`, { token, body: { environment: 'production', key: 'A', value: 'b' } });
    expectRefused(await api.patch(`/v1/projects/${project.id}/configurations/${config.body.id}`, { token, body: {} }), 422, 'validation_failed');
    expectRefused(await api.patch(`/v1/users/${owner.id}`, { token, body: {} }), 422, 'validation_failed');
  });
});

describe('Idempotency-Key', () => {
  it('is documented with its pattern on every operation that takes it', () => {
    let seen = 0;
    for (const item of Object.values(api.document.paths as Record<string, Record<string, any>>))
      for (const operation of Object.values(item)) {
        const header = (operation.parameters ?? []).find((p: any) => p.name === 'Idempotency-Key');
        if (!header) continue;
        seen++;
        expect(header.schema).toEqual({ type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]{1,255}$' });
      }
    expect(seen).toBeGreaterThanOrEqual(6);
  });

  it('an empty, over-long or non-visible value → 400 invalid_request, nothing stored; a valid one works', async () => {
    const count = () => server.repos.projects.collection.countDocuments({ account_id: owner.accountId });
    const before = await count();
    for (const key of ['', 'k'.repeat(256), 'has space', 'tab\there', 'ü']) {
      const res = await api.post('/v1/projects', { token, body: { name: unique('idem') }, headers: { 'idempotency-key': key } });
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message).toMatch(/Idempotency-Key/);
    }
    expect(await count()).toBe(before);
    const longest = await api.post('/v1/projects', { token, body: { name: unique('idem') }, headers: { 'idempotency-key': '~'.repeat(255) } });
    expect(longest.status).toBe(201);
    const none = await api.post('/v1/projects', { token, body: { name: unique('idem') } });
    expect(none.status).toBe(201);
  });
});

describe('405 and OPTIONS name only the methods a path has', () => {
  /** `Allow` as a sorted list. */
  const allowOf = (res: { headers: Headers }) => res.headers.get('allow')!.split(/,\s*/).sort();

  it('/v1/users/me is its own resource: GET only; PATCH and DELETE → 405, not 404', async () => {
    const options = await fetch(`${server.url}/v1/users/me`, { method: 'OPTIONS', headers: { authorization: `Bearer ${token}` } });
    expect(options.status).toBe(204);
    expect(allowOf(options)).toEqual(['GET', 'HEAD']);
    for (const method of ['PATCH', 'DELETE', 'PUT', 'POST']) {
      const res = await api.request(method, '/v1/users/me', { token, body: { name: 'x' } });
      expectRefused(res, 405, 'method_not_allowed');
      expect(allowOf(res), method).toEqual(['GET', 'HEAD']);
    }
    const byId = await fetch(`${server.url}/v1/users/${owner.id}`, { method: 'OPTIONS', headers: { authorization: `Bearer ${token}` } });
    expect(allowOf(byId)).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
  });

  it('for every path of the document, OPTIONS lists exactly its documented methods (plus HEAD with GET)', async () => {
    const project = await createProject(api, token);
    const sample: Record<string, string> = { project_id: project.id, user_id: owner.id };
    const tokensTotal = await tokens.accessToken(owner, 'admin');
    for (const [template, item] of Object.entries(api.document.paths as Record<string, Record<string, any>>)) {
      const path = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => sample[name] ?? `${name.split('_')[0]}_x`);
      const res = await fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { authorization: `Bearer ${tokensTotal}` } });
      const documented = Object.keys(item).map((m) => m.toUpperCase());
      if (documented.includes('GET')) documented.push('HEAD');
      expect(res.status, template).toBe(204);
      expect(allowOf(res), template).toEqual(documented.sort());
    }
  });
});
