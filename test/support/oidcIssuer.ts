import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** One signing key of a test issuer. */
export interface IssuerKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * A CI provider's OpenID Connect issuer on loopback, as GitHub Actions or GitLab run one: discovery at
 * `{url}/.well-known/openid-configuration`, its keys at `{url}/jwks`, and tokens it signs. It counts
 * every request made to it, so tests can say how often Slipway fetched.
 */
export interface TestIssuer {
  /** `http://127.0.0.1:PORT` (+ `path`): the `iss` of its tokens. */
  url: string;
  /** Requests served, by path. */
  fetches: { discovery: number; jwks: number };
  /** The keys served (the first signs by default). */
  keys: IssuerKey[];
  /** A new key, served from now on (and the old ones kept, unless `retire`). */
  rotate(options?: { retire?: boolean; alg?: 'RS256' | 'ES256' }): Promise<IssuerKey>;
  /** Signs `claims` (iss, iat, exp, jti filled in unless given) with `key` (default the first). */
  sign(claims: Record<string, unknown>, options?: { key?: IssuerKey; header?: Record<string, unknown>; now?: number }): Promise<string>;
  close(): Promise<void>;
}

export async function newIssuerKey(alg: 'RS256' | 'ES256' = 'RS256'): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const fetches = { discovery: 0, jwks: 0 };
  const keys = [await newIssuerKey()];
  let url = '';
  const server = http.createServer((req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      fetches.discovery++;
      return send({ issuer: url, jwks_uri: `${url}/jwks`, id_token_signing_alg_values_supported: ['RS256'] });
    }
    if (req.url === '/jwks') {
      fetches.jwks++;
      return send({ keys: keys.map((k) => k.publicJwk) });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    fetches,
    keys,
    async rotate({ retire = false, alg = 'RS256' } = {}) {
      const key = await newIssuerKey(alg);
      if (retire) keys.splice(0, keys.length);
      keys.unshift(key);
      return key;
    },
    async sign(claims, { key = keys[0]!, header = {}, now = Date.now() } = {}) {
      const iat = Math.floor(now / 1000);
      return await new SignJWT({ iss: url, iat, exp: iat + 300, jti: randomUUID(), ...claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
        .sign(key.privateKey);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
