import type { Request } from 'autocannon';
import { newId } from '../../src/lib/ids.ts';
import type { ProjectDoc } from '../../src/repositories/projects.ts';
import { dpopProofSync, newSyncDpopKey, type SyncDpopKey } from '../../test/support/dpop.ts';
import { authorizeOverHttp, CookieJar } from '../../test/support/oauthDriver.ts';
import type { BenchContext, Scenario } from '../lib/types.ts';
import { rotatingRefresh } from './token.ts';

/*
 * DPoP (RFC 9449) beside the Bearer runs of the same paths: every request carries a fresh proof (signed
 * here, ES256, one new jti each), so the server verifies a proof JWT, compares htm/htu/ath and claims the
 * jti with one database insert. The ratio to the Bearer scenario is the cost of sender-constrained tokens.
 */

const FORM = 'application/x-www-form-urlencoded';

/** A public client's tokens for `key`: signs in over HTTP and redeems the code with a proof. */
async function boundTokens(ctx: BenchContext, key: SyncDpopKey, jar: CookieJar, scope: string): Promise<{ access_token: string; refresh_token: string }> {
  const { publicClient, user } = ctx.seed;
  const { callback, verifier } = await authorizeOverHttp(
    { issuer: ctx.server.issuer, clientId: publicClient.clientId, redirectUri: publicClient.redirectUri, scope, email: user.email, password: user.password },
    jar,
  );
  const tokenUrl = `${ctx.server.issuer}/token`;
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': FORM, dpop: dpopProofSync(key, { htm: 'POST', htu: tokenUrl }) },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: publicClient.redirectUri, code_verifier: verifier, client_id: publicClient.clientId }).toString(),
  });
  const body = (await res.json()) as { access_token: string; refresh_token?: string; token_type: string };
  if (res.status !== 200 || body.token_type !== 'DPoP' || !body.refresh_token) throw new Error(`no DPoP-bound tokens were issued: ${res.status} ${JSON.stringify(body)}`);
  return { access_token: body.access_token, refresh_token: body.refresh_token };
}

/** GET /v1/projects/:id with a DPoP-bound user access token; compared with the same read as Bearer. */
export const getProjectDpop: Scenario = {
  id: 'v1-project-get-dpop',
  title: 'GET /v1/projects/:id (DPoP-bound token, fresh proof)',
  compareTo: 'v1-project-get-jwt',
  // The cost of sender-constrained tokens: at least 70 % of the bearer read, in alternating rounds.
  target: 0.7,
  alternate: true,
  async prepare(ctx) {
    const { repos, user } = ctx.seed;
    const now = new Date();
    const project: ProjectDoc = { _id: newId('project', now.getTime()), account_id: user.accountId, name: 'bench-dpop-target', name_lower: 'bench-dpop-target', status: 'active', deploy_target: 'fly', created_at: now, updated_at: now };
    await repos.projects.collection.insertOne(project);
    const key = newSyncDpopKey();
    const { access_token: accessToken } = await boundTokens(ctx, key, new CookieJar(), 'read');
    const path = `/v1/projects/${project._id}`;
    const htu = `${ctx.server.url}${path}`;
    const request: Request = {
      method: 'GET',
      path,
      headers: { authorization: `DPoP ${accessToken}` },
      setupRequest: (req) => ({ ...req, headers: { ...req.headers, dpop: dpopProofSync(key, { htm: 'GET', htu, accessToken }) } }),
    };
    return { requests: [request] };
  },
};

/**
 * The refresh of a public client whose refresh tokens are bound to its key: each request carries a fresh
 * proof (one more verification and one replay-cache insert at the token endpoint). A bound refresh token
 * is not rotated (oidc-provider's default, RFC 9700 §2.2.2: sender-constrained or rotated), so no used
 * token is claimed or kept; each connection still carries its chain as in token.ts
 * (`token-refresh-public`, the rotated Bearer refresh it is compared with), whatever comes back.
 */
export const refreshPublicDpop: Scenario = {
  id: 'token-refresh-public-dpop',
  title: 'POST /oauth/token refresh_token (public, DPoP-bound, not rotated)',
  compareTo: 'token-refresh-public',
  async prepare(ctx) {
    const key = newSyncDpopKey();
    const jar = new CookieJar();
    const pool: string[] = [];
    for (let i = 0; i < ctx.connections * 2 + 1; i += 1) pool.push((await boundTokens(ctx, key, jar, 'read')).refresh_token);
    const htu = `${ctx.server.issuer}/token`;
    // Each request with a proof of its own; a connection presents next the refresh token its last answer returned.
    const request = rotatingRefresh(ctx.seed.publicClient.clientId, pool, () => ({ dpop: dpopProofSync(key, { htm: 'POST', htu }) }));
    return { requests: [request], warmup: false };
  },
};
