/**
 * The baseline for the token endpoint scenarios: a bare oidc-provider, with the same token configuration
 * as Slipway's (src/oauth/provider/: RS256 JWT access tokens for the API audience through resource
 * indicators, client_credentials, the same lifetimes and refresh rotation rules) but an in-memory adapter,
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
import Provider, { type Adapter, type AdapterPayload, type Configuration } from 'oidc-provider';
import { ensurePeerIndexes, peerAdapterClass } from './peerMongoAdapter.ts';
import { BARE_CONFIDENTIAL, BARE_PUBLIC } from './baseline.ts';

/**
 * The bare provider's storage: oidc-provider's own development adapter is an LRU of 1,000 entries shared by
 * every model, so at thousands of refreshes a second it evicts the pool's refresh tokens and grants and the
 * baseline answers 400 (invalid_grant). This is the same adapter without eviction: a Map per model, the
 * grant's members for revokeByGrantId, expiry checked on find. Still in memory only, nothing durable.
 */
function memoryAdapterClass() {
  const models = new Map<string, Map<string, { payload: AdapterPayload; expiresAt: number }>>();
  const grants = new Map<string, Set<{ model: string; id: string }>>();
  const uids = new Map<string, string>();
  const userCodes = new Map<string, string>();
  return class BareMemoryAdapter implements Adapter {
    readonly model: string;
    readonly entries: Map<string, { payload: AdapterPayload; expiresAt: number }>;
    constructor(model: string) {
      this.model = model;
      let entries = models.get(model);
      if (!entries) models.set(model, (entries = new Map()));
      this.entries = entries;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      this.entries.set(id, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
      if (typeof payload.grantId === 'string') {
        let members = grants.get(payload.grantId);
        if (!members) grants.set(payload.grantId, (members = new Set()));
        members.add({ model: this.model, id });
      }
      if (typeof payload.uid === 'string') uids.set(payload.uid, id);
      if (typeof payload.userCode === 'string') userCodes.set(payload.userCode, id);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const entry = this.entries.get(id);
      if (!entry) return undefined;
      if (entry.expiresAt <= Date.now()) {
        this.entries.delete(id);
        return undefined;
      }
      return entry.payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = uids.get(uid);
      return id === undefined ? undefined : this.find(id);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = userCodes.get(userCode);
      return id === undefined ? undefined : this.find(id);
    }

    async consume(id: string): Promise<void> {
      const entry = this.entries.get(id);
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
    }

    async destroy(id: string): Promise<void> {
      this.entries.delete(id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const { model, id } of grants.get(grantId) ?? []) models.get(model)?.delete(id);
      grants.delete(grantId);
    }
  };
}

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
  } else {
    configuration.adapter = memoryAdapterClass();
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
