import { createHash, webcrypto } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, OAuthError, Slipway, SlipwayOAuth } from '../src/index.ts';
import { harness, login, recordingFetch, redirectUri } from './support/env.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

interface Proof {
  header: { typ?: string; alg?: string; jwk?: webcrypto.JsonWebKey & { d?: string } };
  payload: { jti?: string; iat?: number; htm?: string; htu?: string; ath?: string; nonce?: string };
}

/** Decodes a DPoP proof and checks its ES256 signature with the public key in its header. */
async function readProof(jwt: string | null | undefined): Promise<Proof> {
  expect(jwt).toBeTruthy();
  const [h, p, s] = jwt!.split('.');
  const proof: Proof = { header: JSON.parse(Buffer.from(h!, 'base64url').toString()), payload: JSON.parse(Buffer.from(p!, 'base64url').toString()) };
  const key = await webcrypto.subtle.importKey('jwk', proof.header.jwk!, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  const ok = await webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(s!, 'base64url'), Buffer.from(`${h}.${p}`));
  expect(ok, 'proof signature').toBe(true);
  return proof;
}

/** RFC 7638 thumbprint of a P-256 public JWK. */
const thumbprint = (jwk: webcrypto.JsonWebKey) => sha256(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }));

const dpopOAuth = (fetchImpl?: typeof fetch, dpop: boolean | CryptoKeyPair = true) => {
  const info = harness();
  return new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.public_client.client_id, redirectUri: redirectUri(info), dpop, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
};

describe('DPoP against the live server', () => {
  it('login binds the tokens to the key; /v1 calls carry fresh proofs; refresh keeps the bound refresh token; a copy without the key is refused', async () => {
    const info = harness();
    const recorder = recordingFetch();
    const oauth = dpopOAuth(recorder.fetch);
    const tokens = await login(info, 'read', 'owner', oauth);
    expect(tokens.tokenType).toBe('dpop');
    const keyPair = (await oauth.dpopKeyPair())!;
    expect(keyPair.privateKey.extractable).toBe(false);
    expect(keyPair.privateKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    const jkt = thumbprint(await webcrypto.subtle.exportKey('jwk', keyPair.publicKey));

    // The code exchange carried a proof of this key, without ath.
    const exchange = recorder.calls.find((c) => c.url === `${info.issuer}/token` && new URLSearchParams(c.body).get('grant_type') === 'authorization_code')!;
    const exchangeProof = await readProof(exchange.headers.get('dpop'));
    expect(exchangeProof.header.typ).toBe('dpop+jwt');
    expect(exchangeProof.header.alg).toBe('ES256');
    expect(exchangeProof.header.jwk!.d).toBeUndefined();
    expect(thumbprint(exchangeProof.header.jwk!)).toBe(jkt);
    expect(exchangeProof.payload).toMatchObject({ htm: 'POST', htu: `${info.issuer}/token` });
    expect(exchangeProof.payload.ath).toBeUndefined();
    // The server holds it as bound: sent as DPoP without a proof, it asks for one.
    const bound = await fetch(`${info.base_url}/v1/users/me`, { headers: { authorization: `DPoP ${tokens.accessToken}` } });
    expect(bound.status).toBe(401);
    expect(bound.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof"/);

    const session = oauth.session(tokens);
    const slipway = new Slipway({ baseUrl: info.base_url, auth: session, maxRetries: 0, fetch: recorder.fetch });
    const me = await slipway.users.me();
    expect(me.id).toBe(info.owner.id);
    const call = recorder.calls.filter((c) => c.url === `${info.base_url}/v1/users/me`).at(-1)!;
    expect(call.status).toBe(200);
    expect(call.headers.get('authorization')).toBe(`DPoP ${tokens.accessToken}`);
    const proof = await readProof(call.headers.get('dpop'));
    expect(thumbprint(proof.header.jwk!)).toBe(jkt);
    expect(proof.payload).toMatchObject({ htm: 'GET', htu: `${info.base_url}/v1/users/me`, ath: sha256(tokens.accessToken) });

    // Many calls at once: each with its own proof (a proof is single use on the server), all accepted.
    const before = recorder.calls.length;
    const pages = await Promise.all(Array.from({ length: 20 }, () => slipway.projects.list({ per_page: 5 })));
    expect(pages.every((p) => p.data.some((x) => x.id === info.project.id))).toBe(true);
    const burst = recorder.calls.slice(before);
    expect(burst.map((c) => c.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const jtis = await Promise.all(burst.map(async (c) => (await readProof(c.headers.get('dpop'))).payload.jti));
    expect(new Set(jtis).size).toBe(20);
    const htus = await Promise.all(burst.map(async (c) => (await readProof(c.headers.get('dpop'))).payload.htu));
    expect(new Set(htus)).toEqual(new Set([`${info.base_url}/v1/projects`]));

    // Refresh (the access token has "expired"): a proof of the same key; the bound refresh token is not rotated.
    const refreshing = oauth.session({ ...tokens, expiresAt: Date.now() - 1000 });
    const refreshed = new Slipway({ baseUrl: info.base_url, auth: refreshing, maxRetries: 0, fetch: recorder.fetch });
    expect((await refreshed.users.me()).id).toBe(info.owner.id);
    const refresh = recorder.calls.filter((c) => c.url === `${info.issuer}/token` && new URLSearchParams(c.body).get('grant_type') === 'refresh_token');
    expect(refresh).toHaveLength(1);
    expect(refresh[0]!.status).toBe(200);
    const refreshProof = await readProof(refresh[0]!.headers.get('dpop'));
    expect(thumbprint(refreshProof.header.jwk!)).toBe(jkt);
    expect(refreshing.tokens!.tokenType).toBe('dpop');
    expect(refreshing.tokens!.accessToken).not.toBe(tokens.accessToken);
    expect(refreshing.tokens!.refreshToken).toBe(tokens.refreshToken);
    const newToken = refreshing.tokens!.accessToken;

    // The copied access token sent without a proof, as Bearer: refused.
    const asBearer = await fetch(`${info.base_url}/v1/users/me`, { headers: { authorization: `Bearer ${newToken}` } });
    expect(asBearer.status).toBe(401);
    console.log(`bound token as Bearer: ${asBearer.status} ${asBearer.headers.get('www-authenticate')}`);
    // … and through the SDK as a fixed token: the SDK's AuthenticationError.
    const thief = new Slipway({ baseUrl: info.base_url, accessToken: newToken, maxRetries: 0 });
    const stolen = await thief.users.me().catch((e: unknown) => e);
    expect(stolen).toBeInstanceOf(AuthenticationError);
    expect((stolen as AuthenticationError).status).toBe(401);

    // The same tokens with another key: the proof does not match cnf.jkt, an API error invalid_dpop_proof.
    const otherKey = dpopOAuth();
    const wrongKey = new Slipway({ baseUrl: info.base_url, auth: otherKey.session(refreshing.tokens!), maxRetries: 0 });
    const wrong = await wrongKey.users.me().catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(AuthenticationError);
    expect((wrong as AuthenticationError).code).toBe('invalid_dpop_proof');
    expect((wrong as AuthenticationError).status).toBe(401);
    const wrongRefresh = await otherKey.refresh(tokens.refreshToken!).catch((e: unknown) => e);
    expect(wrongRefresh).toBeInstanceOf(OAuthError);
    console.log(`bound refresh token with another key: ${(wrongRefresh as OAuthError).status} ${(wrongRefresh as OAuthError).code}`);

    // The refresh token presented without the key (a plain refresh): refused.
    const plain = new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.public_client.client_id });
    const withoutKey = await plain.refresh(tokens.refreshToken!).catch((e: unknown) => e);
    expect(withoutKey).toBeInstanceOf(OAuthError);
    expect((withoutKey as OAuthError).status).toBe(400);
    console.log(`bound refresh token without a proof: ${(withoutKey as OAuthError).status} ${(withoutKey as OAuthError).code}`);

    // The key's owner still can: neither refusal ended the grant.
    expect((await oauth.refresh(tokens.refreshToken!)).tokenType).toBe('dpop');
  });

  it("a caller-supplied key pair, stored and imported again as the README shows, resumes the session after a restart", async () => {
    const info = harness();
    const keyPair = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const first = dpopOAuth(undefined, keyPair);
    const tokens = await login(info, 'read', 'owner', first);
    const stored = JSON.stringify(await webcrypto.subtle.exportKey('jwk', keyPair.privateKey));
    // A new helper (another process) with the key imported from storage continues the session: refresh and /v1 work.
    const { d: _private, ...publicJwk } = JSON.parse(stored) as webcrypto.JsonWebKey;
    const restored = {
      privateKey: await webcrypto.subtle.importKey('jwk', { ...publicJwk, d: _private }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']),
      publicKey: await webcrypto.subtle.importKey('jwk', { ...publicJwk, key_ops: ['verify'] }, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']),
    } as CryptoKeyPair;
    const recorder = recordingFetch();
    const second = dpopOAuth(recorder.fetch, restored);
    expect(await second.dpopKeyPair()).toBe(restored);
    const slipway = new Slipway({ baseUrl: info.base_url, auth: second.session({ ...tokens, expiresAt: Date.now() - 1 }), maxRetries: 0, fetch: recorder.fetch });
    expect((await slipway.users.me()).id).toBe(info.owner.id);
    const jkt = thumbprint(await webcrypto.subtle.exportKey('jwk', keyPair.publicKey));
    const sent = recorder.calls.filter((c) => c.url === `${info.issuer}/token` || c.url.startsWith(`${info.base_url}/v1/`));
    expect(sent.map((c) => [c.method, c.url, c.status])).toEqual([
      ['POST', `${info.issuer}/token`, 200],
      ['GET', `${info.base_url}/v1/users/me`, 200],
    ]);
    const proofs = await Promise.all(sent.map((c) => readProof(c.headers.get('dpop'))));
    expect(proofs.map((p) => thumbprint(p.header.jwk!))).toEqual([jkt, jkt]);
  });
});

describe('DPoP proofs and nonces (a local stub server)', () => {
  let server: http.Server;
  let base = '';
  const seen: { method: string; path: string; authorization?: string | undefined; dpop?: string | undefined; body: string }[] = [];
  let nonceCount = 0;
  let challengeNext = true;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', base);
        seen.push({ method: req.method ?? '', path: url.pathname + url.search, authorization: req.headers.authorization, dpop: req.headers.dpop as string | undefined, body });
        const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(value));
        };
        if (url.pathname === '/.well-known/oauth-authorization-server/oauth') {
          return json(200, { issuer: `${base}/oauth`, token_endpoint: `${base}/oauth/token`, authorization_endpoint: `${base}/oauth/authorize` });
        }
        const nonce = `nonce-${++nonceCount}`;
        if (challengeNext) {
          challengeNext = false;
          if (url.pathname === '/oauth/token') return json(400, { error: 'use_dpop_nonce', error_description: 'nonce required' }, { 'dpop-nonce': nonce });
          return json(
            401,
            { error: { code: 'use_dpop_nonce', message: 'nonce required', request_id: 'req_1' } },
            { 'www-authenticate': 'DPoP realm="slipway", algs="ES256 Ed25519 EdDSA", error="use_dpop_nonce", error_description="nonce required"', 'dpop-nonce': nonce },
          );
        }
        if (url.pathname === '/oauth/token') return json(200, { access_token: 'at-2', token_type: 'DPoP', expires_in: 600 }, { 'dpop-nonce': nonce });
        if (url.pathname === '/v1/users/me' && req.headers.authorization === 'DPoP wrong') {
          return json(401, { error: { code: 'invalid_dpop_proof', message: 'bad proof', request_id: 'req_2' } }, { 'www-authenticate': 'DPoP realm="slipway", error="invalid_dpop_proof"' });
        }
        return json(req.method === 'POST' ? 201 : 200, { id: 'usr_1', data: [] }, { 'dpop-nonce': nonce });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('every /v1 call: Authorization DPoP, a proof with htm, htu (no query), ath and a new jti; use_dpop_nonce retried once; the latest nonce remembered', async () => {
    seen.length = 0;
    challengeNext = true;
    const oauth = new SlipwayOAuth({ baseUrl: base, clientId: 'cli_stub', dpop: true });
    const slipway = new Slipway({ baseUrl: base, auth: oauth.session({ accessToken: 'at-1', tokenType: 'dpop' }), maxRetries: 0 });

    await slipway.request({ method: 'GET', path: '/v1/projects', query: { per_page: 5 } });
    expect(seen.map((s) => s.path)).toEqual(['/v1/projects?per_page=5', '/v1/projects?per_page=5']);
    const [first, retried] = await Promise.all(seen.map((s) => readProof(s.dpop)));
    expect(first!.payload.nonce).toBeUndefined();
    expect(retried!.payload.nonce).toBe('nonce-1');
    expect(first!.payload.jti).not.toBe(retried!.payload.jti);

    await slipway.request({ method: 'POST', path: '/v1/projects', body: { name: 'x' }, idempotent: true });
    await slipway.users.me();
    expect(seen).toHaveLength(4);
    const proofs = await Promise.all(seen.map((s) => readProof(s.dpop)));
    for (const s of seen) expect(s.authorization).toBe('DPoP at-1');
    expect(proofs.map((p) => p.payload.htm)).toEqual(['GET', 'GET', 'POST', 'GET']);
    expect(proofs.map((p) => p.payload.htu)).toEqual([`${base}/v1/projects`, `${base}/v1/projects`, `${base}/v1/projects`, `${base}/v1/users/me`]);
    // Each answer's DPoP-Nonce is the next proof's nonce.
    expect(proofs.map((p) => p.payload.nonce)).toEqual([undefined, 'nonce-1', 'nonce-2', 'nonce-3']);
    for (const p of proofs) {
      expect(p.payload.ath).toBe(sha256('at-1'));
      expect(p.header.typ).toBe('dpop+jwt');
      expect(p.header.alg).toBe('ES256');
      expect(p.header.jwk!.d).toBeUndefined();
      expect(Math.abs(p.payload.iat! - Date.now() / 1000)).toBeLessThan(120);
    }
    expect(new Set(proofs.map((p) => p.payload.jti)).size).toBe(4);
    // One key for the whole session.
    expect(new Set(proofs.map((p) => thumbprint(p.header.jwk!))).size).toBe(1);
  });

  it('a second use_dpop_nonce is not retried again, and invalid_dpop_proof is the API error with that code', async () => {
    seen.length = 0;
    const oauth = new SlipwayOAuth({ baseUrl: base, clientId: 'cli_stub', dpop: true });
    const wrong = new Slipway({ baseUrl: base, auth: oauth.session({ accessToken: 'wrong', tokenType: 'dpop' }), maxRetries: 0 });
    const err = await wrong.users.me().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).code).toBe('invalid_dpop_proof');
    expect((err as AuthenticationError).requestId).toBe('req_2');
    expect(seen).toHaveLength(1);
  });

  it('a token request with use_dpop_nonce is sent again once with the nonce', async () => {
    seen.length = 0;
    challengeNext = true;
    const oauth = new SlipwayOAuth({ baseUrl: base, clientId: 'cli_stub', dpop: true });
    const tokens = await oauth.refresh('rt-1');
    expect(tokens).toMatchObject({ accessToken: 'at-2', tokenType: 'dpop', refreshToken: undefined });
    const token = seen.filter((s) => s.path === '/oauth/token');
    expect(token).toHaveLength(2);
    const [first, second] = await Promise.all(token.map((s) => readProof(s.dpop)));
    expect(first!.payload).toMatchObject({ htm: 'POST', htu: `${base}/oauth/token` });
    expect(first!.payload.nonce).toBeUndefined();
    expect(second!.payload.nonce).toMatch(/^nonce-\d+$/);
    expect(second!.payload.ath).toBeUndefined();
    expect(first!.payload.jti).not.toBe(second!.payload.jti);
    for (const s of token) expect(new URLSearchParams(s.body).get('refresh_token')).toBe('rt-1');
  });
});
