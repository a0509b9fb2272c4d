import { randomBytes } from 'node:crypto';
import type { Request } from 'autocannon';
import { deleteInBatches } from '../../src/db/deleteInBatches.ts';
import { collectionName, storedArtifact } from '../../src/repositories/oidc/index.ts';
import { basicAuth, CookieJar, obtainTokens } from '../../test/support/oauthDriver.ts';
import { signInConfidential } from '../lib/seed.ts';
import { BARE_CONFIDENTIAL, BARE_PUBLIC, startOidcBaseline, startOidcPeer, type BaselineProcess } from '../lib/baseline.ts';
import { rotatingPoolSize } from '../lib/settings.ts';
import type { BenchContext, Scenario } from '../lib/types.ts';

const FORM = 'application/x-www-form-urlencoded';

function confidentialHeaders(ctx: BenchContext): Record<string, string> {
  const { clientId, clientSecret } = ctx.seed.confidentialClient;
  return { 'content-type': FORM, authorization: basicAuth(clientId, clientSecret) };
}

/** Server-to-server: a confidential client asks for an access token for itself (a signed JWT). */
export const clientCredentials: Scenario = {
  id: 'token-client-credentials',
  title: 'POST /oauth/token client_credentials',
  compareTo: 'token-client-credentials-bare',
  target: 0.6,
  peer: { id: 'token-client-credentials-peer', target: 1.2 },
  async prepare(ctx) {
    return {
      requests: [
        {
          method: 'POST',
          path: '/oauth/token',
          headers: confidentialHeaders(ctx),
          body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read' }).toString(),
        },
      ],
    };
  },
};

/**
 * Refresh with a CONFIDENTIAL client. oidc-provider rotates a confidential client's refresh token only
 * when it is past 70 % of its lifetime (30 days here), so one refresh token, obtained once through the
 * real login and consent pages, can be presented by every connection for the whole run. That measures
 * the refresh path itself (client authentication, token and grant lookup, account lookup, signing a
 * new JWT, the rate-limit counter) without the benchmark spending its time minting tokens.
 */
export const refreshConfidential: Scenario = {
  id: 'token-refresh',
  title: 'POST /oauth/token refresh_token (confidential)',
  compareTo: 'token-refresh-bare',
  // Against the bare provider (which stores nothing): 40 %; against the fair peer: 1.2×.
  target: 0.4,
  peer: { id: 'token-refresh-peer', target: 1.2 },
  async prepare(ctx) {
    const { confidentialClient } = ctx.seed;
    const tokens = await signInConfidential(ctx.server.issuer, ctx.seed, 'read write');
    if (!tokens.refresh_token) throw new Error('no refresh token was issued to the confidential client');
    return {
      requests: [
        {
          method: 'POST',
          path: '/oauth/token',
          headers: confidentialHeaders(ctx),
          // The SPEC §5.2 form: grant_type, refresh_token, client_id (plus Basic authentication).
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: confidentialClient.clientId }).toString(),
        },
      ],
    };
  },
};

/**
 * Refresh with a PUBLIC client (an SPA): its refresh token is rotated on every use and presenting a used
 * one revokes the whole grant, so each connection keeps a chain of its own: every response's new
 * refresh token is sent by that connection's next request. Chains start from a pool minted up front
 * (one login, then authorize + code exchange per token on the signed-in session).
 *
 * The hand-over relies on autocannon calling a connection's `onResponse` and then, synchronously, the
 * `setupRequest` of that same connection's next request (lib/httpClient.js, pipelining 1). Should that
 * ever change, chains would cross, refresh tokens would be reused, and the run would fail loudly with
 * `invalid_grant` rather than measure the wrong thing. No warm-up: a warm-up's connections are dropped
 * mid-request, and their last tokens are simply abandoned from the pool.
 */
export const refreshPublicRotating: Scenario = {
  id: 'token-refresh-public',
  title: 'POST /oauth/token refresh_token (public, rotated)',
  compareTo: 'token-refresh-public-bare',
  target: 0.25,
  peer: { id: 'token-refresh-public-peer', target: 1.2 },
  async prepare(ctx) {
    const { publicClient, user } = ctx.seed;
    const jar = new CookieJar();
    const pool: string[] = [];
    // One chain per connection, plus spares for connections autocannon re-opens after a timeout.
    for (let i = 0; i < rotatingPoolSize(ctx.connections); i += 1) {
      const tokens = await obtainTokens(
        { issuer: ctx.server.issuer, clientId: publicClient.clientId, redirectUri: publicClient.redirectUri, scope: 'read', email: user.email, password: user.password },
        jar,
      );
      if (!tokens.refresh_token) throw new Error('no refresh token was issued to the public client');
      pool.push(tokens.refresh_token);
    }
    return { requests: [rotatingRefresh(publicClient.clientId, pool)], warmup: false };
  },
};

/**
 * One request whose body carries the connection's current refresh token: each response's new token is
 * sent by that connection's next request; a connection starts its chain with a token from `pool`.
 */
export function rotatingRefresh(clientId: string, pool: string[], headersOf: () => Record<string, string> = () => ({})): Request {
  let handoff: string | undefined;
  return {
    method: 'POST',
    path: '/oauth/token',
    headers: { 'content-type': FORM },
    setupRequest(req) {
      const refreshToken = handoff ?? pool.pop() ?? 'pool-exhausted';
      handoff = undefined;
      return {
        ...req,
        headers: { ...req.headers, ...headersOf() },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString(),
      };
    },
    onResponse(status, body) {
      // A failed refresh is counted as non-2xx by autocannon; the connection then starts a fresh chain.
      handoff = status === 200 ? (JSON.parse(body) as { refresh_token?: string }).refresh_token : undefined;
    },
  };
}

/** `count` refresh tokens of a bare baseline's (or the peer's) client, minted by the baseline itself. */
async function bareRefreshTokens(url: string, client: 'confidential' | 'public', count: number): Promise<string[]> {
  const res = await fetch(`${url}/baseline/refresh-tokens?client=${client}&count=${count}`);
  if (!res.ok) throw new Error(`the bare oidc-provider baseline could not mint refresh tokens: ${res.status} ${await res.text()}`);
  return (await res.json()) as string[];
}

const bareConfidentialHeaders = { 'content-type': FORM, authorization: basicAuth(BARE_CONFIDENTIAL.clientId, BARE_CONFIDENTIAL.clientSecret) };

/** A baseline: the bare provider (in-memory adapter) or the fair peer (plain MongoDB adapter on its own FerretDB). */
interface BaselineKind {
  suffix: 'bare' | 'peer';
  title: string;
  start(): Promise<BaselineProcess>;
}

const BARE: BaselineKind = { suffix: 'bare', title: '  baseline: bare oidc-provider, in-memory adapter', start: startOidcBaseline };
const PEER: BaselineKind = { suffix: 'peer', title: '  fair peer: oidc-provider, plain MongoDB adapter, own FerretDB', start: startOidcPeer };

const served = (baseline: BaselineProcess) => ({ url: baseline.url, pid: baseline.pid, ...(baseline.databasePid ? { databasePid: baseline.databasePid } : {}), close: () => baseline.stop() });

const clientCredentialsOf = (kind: BaselineKind): Scenario => ({
  id: `token-client-credentials-${kind.suffix}`,
  title: kind.title,
  async prepare() {
    const baseline = await kind.start();
    return {
      ...served(baseline),
      requests: [{ method: 'POST', path: '/oauth/token', headers: bareConfidentialHeaders, body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read' }).toString() }],
    };
  },
});

const refreshConfidentialOf = (kind: BaselineKind): Scenario => ({
  id: `token-refresh-${kind.suffix}`,
  title: kind.title,
  async prepare() {
    const baseline = await kind.start();
    try {
      const [refreshToken] = await bareRefreshTokens(baseline.url, 'confidential', 1);
      return {
        ...served(baseline),
        requests: [
          {
            method: 'POST',
            path: '/oauth/token',
            headers: bareConfidentialHeaders,
            body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken!, client_id: BARE_CONFIDENTIAL.clientId }).toString(),
          },
        ],
      };
    } catch (err) {
      await baseline.stop();
      throw err;
    }
  },
});

const refreshPublicRotatingOf = (kind: BaselineKind): Scenario => ({
  id: `token-refresh-public-${kind.suffix}`,
  title: kind.title,
  async prepare(ctx) {
    const baseline = await kind.start();
    try {
      const pool = await bareRefreshTokens(baseline.url, 'public', rotatingPoolSize(ctx.connections));
      return { ...served(baseline), requests: [rotatingRefresh(BARE_PUBLIC.clientId, pool)], warmup: false };
    } catch (err) {
      await baseline.stop();
      throw err;
    }
  },
});

export const clientCredentialsBare = clientCredentialsOf(BARE);
export const refreshConfidentialBare = refreshConfidentialOf(BARE);
export const refreshPublicRotatingBare = refreshPublicRotatingOf(BARE);
export const clientCredentialsPeer = clientCredentialsOf(PEER);
export const refreshConfidentialPeer = refreshConfidentialOf(PEER);
export const refreshPublicRotatingPeer = refreshPublicRotatingOf(PEER);

const HISTORY = Number(process.env.BENCH_REFRESH_HISTORY ?? 100_000);

/**
 * The rotated refresh of a public client again, after the database holds the traces of HISTORY earlier
 * refreshes: each rotation leaves the used refresh token behind (consumed, kept until it expires so that
 * presenting it again is detected as reuse and revokes its grant) in the live collection the refresh
 * reads. They are written straight where the adapter keeps them, in their stored form (sealed under their own ids, as the adapter writes them),
 * rather than through 100,000 requests, and removed again when the scenario ends. Compared with the
 * fresh run above.
 */
export const refreshPublicAfterHistory: Scenario = {
  id: 'token-refresh-public-history',
  title: `POST /oauth/token refresh_token (public, rotated) after ${HISTORY.toLocaleString('en')} refreshes`,
  compareTo: 'token-refresh-public',
  target: 0.8,
  // Seeding takes minutes on the embedded database: BENCH_SCENARIOS=token-refresh-public,token-refresh-public-history.
  optIn: true,
  async prepare(ctx) {
    if (!Number.isInteger(HISTORY) || HISTORY < 0 || HISTORY > 1_000_000) throw new Error('BENCH_REFRESH_HISTORY must be an integer from 0 to 1000000');
    const collection = ctx.seed.database.db.collection<{ _id: string; bench_history?: boolean }>(collectionName('RefreshToken'));
    const now = Date.now();
    const expiresAt = new Date(now + 30 * 24 * 3600_000);
    for (let done = 0; done < HISTORY; ) {
      const batch = [];
      for (let i = 0; i < 1000 && done < HISTORY; i += 1, done += 1) {
        const id = randomBytes(32).toString('base64url');
        const grantId = randomBytes(32).toString('base64url');
        const payload = {
          kind: 'RefreshToken',
          jti: id,
          iat: Math.floor(now / 1000) - 60,
          exp: Math.floor(expiresAt.getTime() / 1000),
          accountId: ctx.seed.user.id,
          clientId: ctx.seed.publicClient.clientId,
          grantId,
          gty: 'authorization_code refresh_token',
          scope: 'offline_access read',
          resource: `${ctx.server.url}/v1`,
          rotations: 1,
          iiat: Math.floor(now / 1000) - 120,
          expiresWithSession: false,
        };
        batch.push({ ...storedArtifact('RefreshToken', id, payload, expiresAt), consumed_at: new Date(now - 30_000), bench_history: true });
      }
      await collection.insertMany(batch, { ordered: false });
    }
    const prepared = await refreshPublicRotating.prepare(ctx);
    return {
      ...prepared,
      async close() {
        await prepared.close?.();
        await deleteInBatches(collection, { bench_history: true });
      },
    };
  },
};
