import { randomBytes, randomUUID } from 'node:crypto';
import { generateKeyPair, importJWK, SignJWT, type JWTPayload } from 'jose';
import { CookieJar, obtainTokens, tokenRequest } from './oauthDriver.ts';
import type { Role } from '../../src/domain/principal.ts';
import { makeClient, makeUser } from './factories.ts';
import type { TestServer } from './server.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  role: Role;
  accountId: string;
}

/**
 * Real access tokens for /v1 tests, without a browser: users sign in through the real login page over
 * HTTP (authorization code + PKCE, one login per user, then the session cookie is reused), clients use
 * client_credentials. Also forges tokens that must be refused: expired, foreign key, wrong iss/aud/typ.
 */
export class Tokens {
  readonly server: TestServer;
  readonly #jars = new Map<string, CookieJar>();
  readonly #clients = new Map<string, string>();
  readonly #cache = new Map<string, string>();

  constructor(server: TestServer) {
    this.server = server;
  }

  async user(role: Role, accountId?: string): Promise<TestUser> {
    const doc = await makeUser(this.server, { role, ...(accountId ? { account_id: accountId } : {}) });
    return { id: doc._id, email: doc.email, password: doc.password, role, accountId: doc.account_id };
  }

  /** A first-party public client of the account (no consent page). */
  async publicClient(accountId: string, fresh = false): Promise<string> {
    const existing = this.#clients.get(accountId);
    if (existing && !fresh) return existing;
    const { client } = await makeClient(this.server, { account_id: accountId, redirect_uris: [REDIRECT_URI], first_party: true });
    if (!fresh) this.#clients.set(accountId, client._id);
    return client._id;
  }

  /** Authorization code + PKCE for `user` with `scope`; cached per user, scope and client. */
  async forUser(user: TestUser, scope: string, options: { clientId?: string; withRefresh?: boolean } = {}) {
    const clientId = options.clientId ?? (await this.publicClient(user.accountId));
    const key = `${user.id} ${clientId} ${scope}`;
    if (!options.withRefresh && this.#cache.has(key)) return { access_token: this.#cache.get(key)!, refresh_token: undefined, clientId };
    let jar = this.#jars.get(user.id);
    if (!jar) this.#jars.set(user.id, (jar = new CookieJar()));
    // A person with several accounts picks the user's own on the chooser.
    const tokens = await obtainTokens({ issuer: this.server.issuer, clientId, redirectUri: REDIRECT_URI, scope, email: user.email, password: user.password, account: user.accountId }, jar);
    this.#cache.set(key, tokens.access_token);
    return { access_token: tokens.access_token, refresh_token: tokens.refresh_token, clientId };
  }

  async accessToken(user: TestUser, scope: string): Promise<string> {
    return (await this.forUser(user, scope)).access_token;
  }

  /** client_credentials for a new confidential client of the account. */
  async forClient(accountId: string, scope: string): Promise<{ token: string; clientId: string }> {
    const { client, clientSecret } = await makeClient(this.server, {
      account_id: accountId,
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
    });
    const tokens = await tokenRequest(this.server.issuer, { clientId: client._id, clientSecret: clientSecret! }, { grant_type: 'client_credentials', scope });
    return { token: tokens.access_token, clientId: client._id };
  }

  /**
   * A token signed with the server's real signing key (or a foreign key), with the given claims and
   * header overrides: for expired, wrong-iss/aud/typ and badly signed cases.
   */
  async forge(claims: JWTPayload & Record<string, unknown>, options: { typ?: string; foreignKey?: boolean } = {}): Promise<string> {
    const jwk = this.server.running.container.keys.signing.keys[0]!;
    const now = Math.floor(Date.now() / 1000);
    const body = {
      iss: this.server.issuer,
      aud: `${this.server.url}/v1`,
      iat: now,
      exp: now + 3600,
      jti: randomUUID(),
      scope: 'read write admin',
      ...claims,
    };
    const header = { alg: 'RS256', typ: options.typ ?? 'at+jwt', kid: jwk.kid! };
    const key = options.foreignKey ? (await generateKeyPair('RS256')).privateKey : await importJWK(jwk, 'RS256');
    return await new SignJWT(body).setProtectedHeader(header).sign(key);
  }

  /** Claims of a valid user token for `user` (with a grant id nobody revoked). */
  userClaims(user: TestUser, clientId: string) {
    return { sub: user.id, client_id: clientId, acct: user.accountId, gid: `grant-${randomBytes(6).toString('hex')}` };
  }
}
