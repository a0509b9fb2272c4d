import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCode, NotFoundError, ServerError, Slipway, SlipwayError, type Project } from '../src/index.ts';
import { harness, recordingFetch, unique } from './support/env.ts';
import { REPO_ROOT } from './support/harness.ts';

describe('per-call options: idempotency key, timeout, headers, retries (the same names on every method)', () => {
  it("the client's headers go with every request and a call's own headers win; the caller's Idempotency-Key is sent as given", async () => {
    const info = harness();
    const recorder = recordingFetch();
    const ci = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, fetch: recorder.fetch, headers: { 'x-app': 'deploy-bot/1.4', 'x-trace': 'client' } });
    const key = `options-${unique('key')}`;
    const created = await ci.deployments.create(info.api_key.project_id, { environment: 'dev', branch: unique('opt') }, { headers: { 'x-trace': 'call' }, idempotencyKey: key, maxRetries: 0, timeout: 10_000 });
    await ci.deployments.get(info.api_key.project_id, created.id);
    const [post, get] = recorder.calls;
    expect(post!.headers.get('x-app')).toBe('deploy-bot/1.4');
    expect(post!.headers.get('x-trace')).toBe('call');
    expect(post!.headers.get('idempotency-key')).toBe(key);
    expect(get!.headers.get('x-trace')).toBe('client');
    expect(get!.headers.get('authorization')).toBe(`Bearer ${info.api_key.key}`);
    // The same key again replays the first answer: the same deployment, not a second one.
    const again = await ci.deployments.create(info.api_key.project_id, { environment: 'dev', branch: created.branch }, { idempotencyKey: key });
    expect(again.id).toBe(created.id);
  });
});

describe('slipway.request: operations this SDK does not wrap, with the same credentials, options and errors', () => {
  it('GET with a query, POST with a generated or given Idempotency-Key, and typed errors', async () => {
    const info = harness();
    const recorder = recordingFetch();
    const ci = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, fetch: recorder.fetch });
    const page = await ci.request<{ data: Project[]; pagination: { per_page: number } }>({ method: 'GET', path: '/v1/projects', query: { per_page: 5, page: undefined } });
    expect(page.data.map((p) => p.id)).toEqual([info.api_key.project_id]);
    expect(page.pagination.per_page).toBe(5);
    expect(new URL(recorder.calls[0]!.url).search).toBe('?per_page=5');

    const path = `/v1/projects/${info.api_key.project_id}/deployments`;
    const a = await ci.request<{ id: string }>({ method: 'POST', path, body: { environment: 'dev', branch: unique('raw') }, idempotent: true });
    const b = await ci.request<{ id: string }>({ method: 'POST', path, body: { environment: 'dev', branch: unique('raw') } }, { idempotencyKey: `raw-${unique('k')}` });
    expect(a.id).not.toBe(b.id);
    const posts = recorder.calls.filter((c) => c.method === 'POST');
    expect(posts[0]!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.headers.get('idempotency-key')).toMatch(/^raw-/);

    const missing = await ci.request({ method: 'GET', path: '/v1/projects/proj_missing' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: ErrorCode.NotFound, status: 404 });
  });
});

describe('error codes', () => {
  it("ErrorCode names every code of the server's list (docs/api.md \"Errors\" and the OpenAPI Error schema) and the client's own", async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'docs', 'api.md'), 'utf8');
    const errors = readme.slice(readme.indexOf('**Errors**'), readme.indexOf('\n\n', readme.indexOf('**Errors**')));
    const fromReadme = [...errors.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!).filter((code) => code !== 'details');
    expect(fromReadme.length).toBeGreaterThanOrEqual(15);
    const document = (await (await fetch(harness().openapi_url)).json()) as { components: { schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } } } };
    const fromDocument = document.components.schemas.Error.properties.error.properties.code.enum;
    const values = new Set<string>(Object.values(ErrorCode));
    for (const code of [...fromReadme, ...fromDocument, 'timeout', 'request_aborted', 'network_error']) expect(values.has(code), code).toBe(true);
    expect(ErrorCode.NotFound).toBe('not_found');
    expect(ErrorCode.RequestAborted).toBe('request_aborted');
  });

  it('an error response that is not Slipway JSON (a proxy page, or JSON of another shape) is http_<status>, with its class by status', async () => {
    const answers: [number, string, string][] = [
      [502, 'text/html', '<html><body><h1>502 Bad Gateway</h1></body></html>'],
      [404, 'text/plain', 'no such route'],
      [503, 'application/json', '{"message":"upstream down"}'],
    ];
    let next = 0;
    const proxy = createServer((req, res) => {
      req.resume();
      const [status, type, body] = answers[next++]!;
      res.writeHead(status, { 'content-type': type }).end(body);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const client = new Slipway({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, apiKey: 'slw_x', maxRetries: 0 });
      const got = [];
      for (let i = 0; i < answers.length; i += 1) got.push(await client.projects.list().catch((e: unknown) => e));
      for (const err of got) expect(err).toBeInstanceOf(SlipwayError);
      expect(got.map((e) => [(e as SlipwayError).code, (e as SlipwayError).status])).toEqual([
        ['http_502', 502],
        ['http_404', 404],
        ['http_503', 503],
      ]);
      expect(got[0]).toBeInstanceOf(ServerError);
      expect(got[1]).toBeInstanceOf(NotFoundError);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('ids in paths', () => {
  it('an id is one encoded path segment; an empty id rejects the returned promise with a TypeError', async () => {
    const info = harness();
    const recorder = recordingFetch();
    const ci = new Slipway({ baseUrl: info.base_url, apiKey: info.api_key.key, fetch: recorder.fetch, maxRetries: 0 });
    await expect(ci.deployments.get(info.api_key.project_id, '../../users/me')).rejects.toBeInstanceOf(NotFoundError);
    expect(new URL(recorder.calls[0]!.url).pathname).toBe(`/v1/projects/${info.api_key.project_id}/deployments/..%2F..%2Fusers%2Fme`);
    const pending = ci.projects.get('');
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toBeInstanceOf(TypeError);
    expect(recorder.calls).toHaveLength(1);
  });
});

describe('the base URL from the environment: SLIPWAY_URL, the one name of the three SDKs', () => {
  it('is used when baseUrl is left out; SLIPWAY_BASE_URL still works, with one deprecation warning', async () => {
    const info = harness();
    const saved = { url: process.env.SLIPWAY_URL, base: process.env.SLIPWAY_BASE_URL };
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      delete process.env.SLIPWAY_BASE_URL;
      process.env.SLIPWAY_URL = info.base_url;
      const fromUrl = new Slipway({ apiKey: info.api_key.key });
      expect(fromUrl.baseUrl).toBe(info.base_url);
      expect((await fromUrl.projects.get(info.api_key.project_id)).id).toBe(info.api_key.project_id);
      // An explicit baseUrl wins over the environment.
      expect(new Slipway({ baseUrl: 'https://slipway.example.com/', apiKey: info.api_key.key }).baseUrl).toBe('https://slipway.example.com');

      delete process.env.SLIPWAY_URL;
      process.env.SLIPWAY_BASE_URL = info.base_url;
      const fromOldName = new Slipway({ apiKey: info.api_key.key });
      new Slipway({ apiKey: info.api_key.key });
      expect(fromOldName.baseUrl).toBe(info.base_url);
      expect((await fromOldName.projects.get(info.api_key.project_id)).id).toBe(info.api_key.project_id);
      await new Promise((resolve) => setImmediate(resolve));
      const notices = warnings.filter((w) => (w as Error & { code?: string }).code === 'SLIPWAY_DEPRECATED_BASE_URL');
      expect(notices).toHaveLength(1);
      expect(notices[0]!.name).toBe('DeprecationWarning');
      expect(notices[0]!.message).toMatch(/set SLIPWAY_URL/);

      delete process.env.SLIPWAY_BASE_URL;
      expect(() => new Slipway({ apiKey: info.api_key.key })).toThrow(/baseUrl is required \(or set SLIPWAY_URL\)/);
    } finally {
      process.off('warning', onWarning);
      for (const [name, value] of [['SLIPWAY_URL', saved.url], ['SLIPWAY_BASE_URL', saved.base]] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });
});
