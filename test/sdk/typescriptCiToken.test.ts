/**
 * The TypeScript SDK's `exchangeCiToken` (sdk/typescript/src/ciToken.ts) against the real server and a
 * loopback CI issuer: a CI job's OIDC token from a string, a file, or a GitHub-Actions-shaped token
 * service, exchanged (RFC 8693) for a DPoP-bound token a `Slipway` client deploys with; the refusals as
 * `OAuthError`s with the server's code; one token exchanged at once many times: one success.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError, Slipway, exchangeCiToken, readCiToken } from '../../sdk/typescript/src/index.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.ts';
import { tempDir } from '../support/tempDirs.ts';

const env = useApiServer({ overrides: { federationAllowLoopback: true, tokenFailuresPerSourcePerMinute: 1_000_000, tokenFailuresPerClientAndSourcePerMinute: 1_000_000 } });
const REPOSITORY = '880088';
let issuer: TestIssuer, untrusted: TestIssuer;
let projectId: string, policyId: string;

beforeAll(async () => {
  [issuer, untrusted] = await Promise.all([startTestIssuer(), startTestIssuer()]);
  projectId = (await createProject(env.api, env.adminToken)).id as string;
  const res = await env.api.post(`/v1/projects/${projectId}/trust_policies`, {
    token: env.adminToken,
    body: { name: 'GitHub Actions', issuer: issuer.url, claims: { repository_id: REPOSITORY }, scopes: ['read', 'write'], environments: ['production'] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  policyId = res.body.id as string;
});
afterAll(async () => {
  await Promise.all([issuer?.close(), untrusted?.close()]);
});

const ciToken = (from: TestIssuer = issuer, claims: Record<string, unknown> = {}) => from.sign({ sub: 'repo:acme/app:ref:refs/heads/main', aud: env.server.url, repository_id: REPOSITORY, ...claims }, { now: env.server.clock.now() });

async function refusal(promise: Promise<unknown>): Promise<OAuthError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OAuthError);
  return err as OAuthError;
}

describe('exchangeCiToken (TypeScript SDK)', () => {
  it('a token string: a DPoP-bound access token (tokenType dpop) a Slipway client deploys with as the trust policy; useless as Bearer', async () => {
    const { tokens, auth } = await exchangeCiToken({ baseUrl: env.server.url, token: await ciToken(), project: projectId });
    expect(tokens).toMatchObject({ tokenType: 'dpop', scope: 'read write', accessToken: expect.any(String) });
    expect(tokens.expiresAt! - Date.now()).toBeGreaterThan(800_000);
    const client = new Slipway({ baseUrl: env.server.url, auth });
    const created = await client.deployments.create(projectId, { environment: 'production', branch: 'main' });
    expect((created as unknown as { created_by: unknown }).created_by).toEqual({ type: 'federated', id: policyId });
    const bearer = await fetch(`${env.server.url}/v1/projects/${projectId}/deployments`, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    expect(bearer.status).toBe(401);

    // dpop: false: a Bearer token.
    const plain = await exchangeCiToken({ baseUrl: env.server.url, token: await ciToken(), dpop: false });
    expect(plain.tokens.tokenType.toLowerCase()).toBe('bearer');
    expect((await new Slipway({ baseUrl: env.server.url, auth: plain.auth }).deployments.get(projectId, created.id)).id).toBe(created.id);
  });

  it('a token file (whitespace around it ignored) and a GitHub-Actions-shaped token service (Bearer request token, audience = the base URL)', async () => {
    const file = path.join(tempDir('slipway-sdk-ci-'), 'token');
    writeFileSync(file, ` ${await ciToken()}\n`);
    const fromFile = await exchangeCiToken({ baseUrl: env.server.url, tokenFile: file });
    expect(fromFile.tokens.tokenType).toBe('dpop');
    expect((await refusal(readCiToken({ tokenFile: `${file}.missing` }))).code).toBe('ci_token_unavailable');

    const seen: { authorization: string | undefined; audience: string | null }[] = [];
    const github = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://127.0.0.1');
      seen.push({ authorization: req.headers.authorization, audience: url.searchParams.get('audience') });
      if (req.headers.authorization !== 'Bearer ghs_request') return res.writeHead(403).end();
      void ciToken(issuer, { aud: url.searchParams.get('audience') }).then((value) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ value })));
    });
    await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
    try {
      const requestUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}/token?api-version=2.0`;
      const fromGithub = await exchangeCiToken({ baseUrl: `${env.server.url}/`, github: { requestUrl, requestToken: 'ghs_request' } });
      expect(fromGithub.tokens.tokenType).toBe('dpop');
      expect(seen).toEqual([{ authorization: 'Bearer ghs_request', audience: env.server.url }]);
      const wrong = await refusal(exchangeCiToken({ baseUrl: env.server.url, github: { requestUrl, requestToken: 'ghs_wrong' } }));
      expect(wrong).toMatchObject({ code: 'ci_token_unavailable', status: 403 });
    } finally {
      github.closeAllConnections();
      await new Promise<void>((resolve) => github.close(() => resolve()));
    }
    await expect(readCiToken({})).rejects.toThrow(TypeError);
  });

  it("refusals are OAuthErrors with the server's code: invalid_grant (untrusted issuer), invalid_target (another project), invalid_scope", async () => {
    expect(await refusal(exchangeCiToken({ baseUrl: env.server.url, token: await ciToken(untrusted) }))).toMatchObject({ code: 'invalid_grant', status: 400, message: 'The subject token is not acceptable.' });
    const other = (await createProject(env.api, env.adminToken)).id as string;
    expect((await refusal(exchangeCiToken({ baseUrl: env.server.url, token: await ciToken(), project: other }))).code).toBe('invalid_target');
    expect((await refusal(exchangeCiToken({ baseUrl: env.server.url, token: await ciToken(), scope: 'admin' }))).code).toBe('invalid_scope');
  });

  it('one CI token exchanged 8 times at once: exactly one succeeds, the others are invalid_grant', async () => {
    const token = await ciToken();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => exchangeCiToken({ baseUrl: env.server.url, token })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as OAuthError).code);
    expect(refused).toEqual(Array(7).fill('invalid_grant'));
  });
});
