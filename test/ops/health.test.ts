import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb } from '../../src/db/embeddedFerretdb.ts';
import { useTestServer } from '../support/fixtures.ts';
import { waitFor } from '../support/processes.ts';
import { startTestServer } from '../support/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const server = useTestServer();

describe('system endpoints', () => {
  it('/healthz answers 200 {status: ok} and is not cached', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('/readyz answers 200 with the database check ok', async () => {
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', checks: { database: 'ok' } });
  });

  it('/metrics is Prometheus text that counts requests by route and status', async () => {
    await fetch(`${server.url}/healthz`);
    await fetch(`${server.url}/no-such-page`);
    // The test servers serve /metrics on a listener of their own (metricsListen), not the public port.
    const response = await fetch(server.metricsUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('# TYPE slipway_http_requests_total counter');
    expect(text).toMatch(/^slipway_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^slipway_http_requests_total\{method="GET",route="other",status="404"\} [1-9]\d*$/m);
    expect(text).toContain('slipway_http_request_duration_seconds_bucket');
    expect(text).toContain('slipway_process_resident_memory_bytes');
    // Paths with ids never become labels.
    expect(text).not.toContain('no-such-page');
  });

  it('every response carries a fresh X-Request-Id, including the auth server and errors', async () => {
    const requests: [string, RequestInit?][] = [
      ['/healthz'],
      ['/readyz'],
      ['/metrics'],
      ['/no-such-page'],
      ['/v1/nothing-here'],
      ['/oauth/jwks'],
      ['/oauth/.well-known/openid-configuration'],
      ['/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' }],
      ['/oauth/interaction/unknown-interaction'],
    ];
    const ids = new Set<string>();
    for (const [pathname, init] of requests) {
      const response = await fetch(`${server.url}${pathname}`, init);
      await response.body?.cancel();
      const id = response.headers.get('x-request-id');
      expect(id, `${pathname} (${response.status})`).toMatch(UUID);
      ids.add(id!);
    }
    expect(ids.size).toBe(requests.length);
  });

  it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const mine = 'ops-trace-2f9c1e7a.0001';
    // /readyz, because /healthz is logged at debug level only.
    const echoed = await fetch(`${server.url}/readyz`, { headers: { 'x-request-id': mine } });
    expect(echoed.headers.get('x-request-id')).toBe(mine);

    for (const bad of ['short', 'has spaces in it', 'x'.repeat(200), 'inject\\"quote']) {
      const response = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': bad } });
      expect(response.headers.get('x-request-id'), bad).toMatch(UUID);
    }
    await waitFor('the access log line', async () => server.logs.some((l) => l.includes(`"request_id":"${mine}"`) && l.includes('"path":"/readyz"')), 2000);
  });

  it('an unknown path is 404 in the JSON error shape, with the request id', async () => {
    // (Not /v1/...: whether an anonymous caller sees 401 before 404 there is the API's own decision.)
    for (const pathname of ['/no-such-page', '/v2/projects', '/oauthx', '/healthz/extra']) {
      const response = await fetch(`${server.url}${pathname}`, { headers: { accept: 'application/json' } });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(body).toEqual({ error: { code: 'not_found', message: expect.any(String), status: 404, request_id: response.headers.get('x-request-id') } });
      expect((body.error.message as string).length).toBeGreaterThan(0);
    }
  });
});

describe('/readyz when the database goes away', () => {
  it('turns 503 with the database unreachable, while /healthz stays 200', async () => {
    const binary = await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-readyz-db-'));
    const database = await startFerretdb({ binary, dataDir: dir });
    const own = await startTestServer({ overrides: { mongodbUri: database.uri } });
    try {
      const ready = await fetch(`${own.url}/readyz`);
      expect(ready.status).toBe(200);
      await ready.body?.cancel();

      await database.stop();
      const unready = await waitFor(
        '/readyz to turn 503',
        async () => {
          const response = await fetch(`${own.url}/readyz`);
          if (response.status === 503) return response;
          await response.body?.cancel();
          return undefined;
        },
        15_000,
        200,
      );
      expect(unready.headers.get('cache-control')).toBe('no-store');
      expect(await unready.json()).toEqual({ status: 'unavailable', checks: { database: 'unreachable' } });
      // Liveness does not depend on the database: restarting the process would not help.
      expect((await fetch(`${own.url}/healthz`)).status).toBe(200);
    } finally {
      await own.stop();
      await database.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
