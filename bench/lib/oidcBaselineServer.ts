/**
 * The baseline for the token endpoint scenarios: a bare oidc-provider, with the same token configuration
 * as Slipway's (src/oauth/provider/: RS256 JWT access tokens for the API audience through resource
 * indicators, client_credentials, the same lifetimes and refresh rotation rules) but its in-memory adapter,
 * static clients, no rate limit, no logging. The ratio ours/baseline is what Slipway's storage, client
 * and account lookups, rate limit and pipeline cost on top of oidc-provider itself.
 *
 * Refresh tokens are minted in-process through the provider's own models (a grant, then a refresh token
 * from it), as a code exchange would store them, and handed out by GET /baseline/refresh-tokens.
 *
 * With BASELINE_MONGODB_URI it is the fair peer instead: the same provider on a plain MongoDB adapter
 * (./peerMongoAdapter.ts, the shape of oidc-provider's own example) in database BASELINE_DB, what a team
 * would deploy instead of Slipway; bench/lib/baseline.ts starts it on an embedded FerretDB of its own,
 * from the project's binary.
 *
 * Run as a child process by bench/lib/baseline.ts (so autocannon does not share its event loop):
 *   BASELINE_PORT, BASELINE_AUDIENCE, BASELINE_MONGODB_URI, BASELINE_DB
 */
import http from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import { MongoClient } from 'mongodb';
import Provider, { type Configuration } from 'oidc-provider';
import { ensurePeerIndexes, peerAdapterClass } from './peerMongoAdapter.ts';
import { BARE_CONFIDENTIAL, BARE_PUBLIC } from './baseline.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const ACCOUNT_ID = 'bench-user';

async function main(): Promise<void> {
  const port = Number(process.env.BASELINE_PORT);
  const issuer = `http://127.0.0.1:${port}/oauth`;
  const audience = process.env.BASELINE_AUDIENCE ?? `http://127.0.0.1:${port}/v1`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const configuration: Configuration = {
    clients: [
      {
        client_id: BARE_CONFIDENTIAL.clientId,
        client_secret: BARE_CONFIDENTIAL.clientSecret,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'offline_access read write',
      },
      {
        client_id: BARE_PUBLIC.clientId,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
        scope: 'offline_access read write',
      },
    ],
    jwks: { keys: [jwk] } as Configuration['jwks'],
    responseTypes: ['code'],
    scopes: ['offline_access', 'read', 'write', 'admin'],
    clientAuthMethods: ['none', 'client_secret_basic'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({ scope: 'read write admin', audience, accessTokenTTL: 3600, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
      },
    },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: () => false,
    // Slipway's tokens carry the tenant and the grant id; so do these (the same JWT size and work).
    extraTokenClaims: (_ctx, token) => ({ acct: 'acct-bench', gid: (token as { grantId?: string }).grantId }),
    ttl: { AccessToken: 3600, ClientCredentials: 3600, AuthorizationCode: 60, RefreshToken: 30 * 24 * 3600, Grant: 365 * 24 * 3600, Session: 14 * 24 * 3600, Interaction: 3600 },
  };
  const mongodbUri = process.env.BASELINE_MONGODB_URI;
  if (mongodbUri) {
    const client = await new MongoClient(mongodbUri).connect();
    const db = client.db(process.env.BASELINE_DB ?? 'peer');
    await ensurePeerIndexes(db, ['Session', 'AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'ClientCredentials', 'Interaction', 'ReplayDetection', 'PushedAuthorizationRequest', 'Grant']);
    configuration.adapter = peerAdapterClass(db);
  }
  const provider = new Provider(issuer, configuration);

  async function mintRefreshToken(clientId: string): Promise<string> {
    const client = await provider.Client.find(clientId);
    if (!client) throw new Error(`no client ${clientId}`);
    const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId });
    grant.addOIDCScope('offline_access');
    grant.addResourceScope(audience, 'read write');
    const grantId = await grant.save();
    const token = new provider.RefreshToken({ accountId: ACCOUNT_ID, client, grantId, gty: 'authorization_code', scope: 'offline_access read write', resource: audience });
    return await token.save();
  }

  const callback = provider.callback();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (url.pathname === '/baseline/refresh-tokens') {
      const clientId = url.searchParams.get('client') === 'public' ? BARE_PUBLIC.clientId : BARE_CONFIDENTIAL.clientId;
      const count = Math.min(1000, Math.max(1, Number(url.searchParams.get('count')) || 1));
      Promise.all(Array.from({ length: count }, () => mintRefreshToken(clientId))).then(
        (tokens) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tokens)),
        (err: unknown) => res.writeHead(500).end((err as Error).message),
      );
      return;
    }
    if (url.pathname.startsWith('/oauth/')) {
      req.url = req.url!.slice('/oauth'.length);
      callback(req, res);
      return;
    }
    res.writeHead(404).end();
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => {
    server.close();
    process.exit(0);
  });
}

await main();
