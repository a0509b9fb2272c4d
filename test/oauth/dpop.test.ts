import { createHash } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useCallbackServer, useTestServer } from '../support/fixtures.ts';
import { dpopCall, dpopProof, newDpopKey, signCompact, type DpopKey } from '../support/dpop.ts';
import { CookieJar, driveAuthorization, obtainTokens } from '../support/oauthDriver.ts';
import { discoverPublicClient } from '../support/oauthFlow.ts';
import { startAnotherInstance, type TestServer } from '../support/server.ts';
import { race } from '../support/concurrency.ts';

const a = useTestServer();
const callback = useCallbackServer();
let b: TestServer;
beforeAll(async () => {
  // A second instance on the same database and keys, behind the same PUBLIC_URL (as behind a load
  // balancer): proofs name PUBLIC_URL, whichever instance (port, Host header) receives them.
  b = await startAnotherInstance(a);
});
afterAll(async () => {
  await b?.stop();
});

type User = Awaited<ReturnType<typeof makeUser>>;

/** Signs in over HTTP and redeems the code with openid-client, proving possession of `key` at the token endpoint. */
async function boundTokens(server: TestServer, clientId: string, user: User, key: DpopKey, scope = 'read write') {
  const config = await discoverPublicClient(server.issuer, clientId, 'oauth2');
  const dpop = oidc.getDPoPHandle(config, { privateKey: key.privateKey, publicKey: key.publicKey });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: callback.redirectUri, scope, state, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' });
  const { callback: callbackUrl } = await driveAuthorization(url, { redirectUri: callback.redirectUri, email: user.email, password: user.password }, new CookieJar());
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state }, undefined, { DPoP: dpop });
  return { config, dpop, tokens };
}

async function expectDpopRefusal(res: Response, code: string) {
  expect(res.status).toBe(401);
  const body = (await res.json()) as { error: { code: string } };
  expect(body.error.code).toBe(code);
  expect(res.headers.get('www-authenticate')).toMatch(new RegExp(`^DPoP realm="slipway", algs="ES256 Ed25519 EdDSA", error="${code}"`));
}

describe('DPoP-bound tokens (RFC 9449) on /v1', () => {
  let user: User, clientId: string, key: DpopKey, accessToken: string, refreshToken: string;
  let config: oidc.Configuration, dpop: oidc.DPoPHandle;
  const projects = () => `${a.url}/v1/projects`;

  beforeAll(async () => {
    user = await makeUser(a, { role: 'developer' });
    ({ client: { _id: clientId } } = await makeClient(a, { account_id: user.account_id, redirect_uris: [callback.redirectUri] }));
    key = await newDpopKey();
    let tokens: oidc.TokenEndpointResponse;
    ({ config, dpop, tokens } = await boundTokens(a, clientId, user, key));
    accessToken = tokens.access_token;
    refreshToken = tokens.refresh_token!;
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(decodeJwt(accessToken).cnf).toEqual({ jkt: key.thumbprint });
  });

  it('works with openid-client: /v1 and userinfo with fresh proofs', async () => {
    const res = await oidc.fetchProtectedResource(config, accessToken, new URL(projects()), 'GET', undefined, undefined, { DPoP: dpop });
    expect(res.status).toBe(200);
    const me = await oidc.fetchProtectedResource(config, accessToken, new URL(`${a.url}/v1/users/me`), 'GET', undefined, undefined, { DPoP: dpop });
    expect(me.status).toBe(200);
  });

  it('works on the other instance with a proof for PUBLIC_URL, not for the address the request reached', async () => {
    expect((await dpopCall(b.url, '/v1/projects', accessToken, await dpopProof(key, { htm: 'GET', htu: projects(), accessToken }))).status).toBe(200);
    const forHost = await dpopCall(b.url, '/v1/projects', accessToken, await dpopProof(key, { htm: 'GET', htu: `${b.url}/v1/projects`, accessToken }));
    await expectDpopRefusal(forHost, 'invalid_dpop_proof');
  });

  it('works with a proof made by hand, and the answer offers a nonce for the next proof', async () => {
    const res = await dpopCall(a.url, '/v1/projects', accessToken, await dpopProof(key, { htm: 'GET', htu: projects(), accessToken }));
    expect(res.status).toBe(200);
    expect(res.headers.get('dpop-nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The query string is not part of htu.
    const paged = await dpopCall(a.url, '/v1/projects?per_page=5', accessToken, await dpopProof(key, { htm: 'GET', htu: `${projects()}?ignored=1`, accessToken }));
    expect(paged.status).toBe(200);
  });

  it('refuses the bound token as Bearer, even with a valid proof', async () => {
    await expectDpopRefusal(await dpopCall(a.url, '/v1/projects', accessToken, undefined, 'GET', 'Bearer'), 'invalid_token');
    await expectDpopRefusal(await dpopCall(a.url, '/v1/projects', accessToken, await dpopProof(key, { htm: 'GET', htu: projects(), accessToken }), 'GET', 'Bearer'), 'invalid_token');
  });

  it('refuses a missing proof, one for another method, URL, origin or token, one by another key, and a malformed one', async () => {
    const other = await newDpopKey();
    const cases: [string, string | undefined][] = [
      ['no proof', undefined],
      ['another method', await dpopProof(key, { htm: 'POST', htu: projects(), accessToken })],
      ['another path', await dpopProof(key, { htm: 'GET', htu: `${a.url}/v1/users`, accessToken })],
      ['another origin (as a forged Host header would make it)', await dpopProof(key, { htm: 'GET', htu: 'http://attacker.example/v1/projects', accessToken })],
      ['another token (ath)', await dpopProof(key, { htm: 'GET', htu: projects(), accessToken: `${accessToken}x` })],
      ['no ath', await dpopProof(key, { htm: 'GET', htu: projects() })],
      ['another key', await dpopProof(other, { htm: 'GET', htu: projects(), accessToken })],
      ['not a JWT', 'not-a-proof'],
    ];
    for (const [name, proof] of cases) {
      const res = await dpopCall(a.url, '/v1/projects', accessToken, proof);
      expect(res.status, name).toBe(401);
      await expectDpopRefusal(res, 'invalid_dpop_proof');
    }
  });

  it('verifies a proof as a JWS, strictly: a changed signature or payload, a crit header, another typ, a key of another kind than its alg, a passed exp, and claims that are no JSON object are refused', async () => {
    const claims = () => ({ htm: 'GET', htu: projects(), jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000), ath: createHash('sha256').update(accessToken).digest('base64url') });
    const header = { alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk };
    // The helper's own proof is accepted (and so is typ written as a media type), so each refusal below is for its one change.
    expect((await dpopCall(a.url, '/v1/projects', accessToken, signCompact(key, header, JSON.stringify(claims())))).status).toBe(200);
    expect((await dpopCall(a.url, '/v1/projects', accessToken, signCompact(key, { ...header, typ: 'application/dpop+jwt' }, JSON.stringify(claims())))).status).toBe(200);
    const good = signCompact(key, header, JSON.stringify(claims()));
    const [h, p, sig] = good.split('.') as [string, string, string];
    const flipped = Buffer.from(sig, 'base64url');
    flipped[10]! ^= 1;
    const p384 = await generateKeyPair('ES384', { extractable: true });
    const p384Jwk = await exportJWK(p384.publicKey);
    const cases: [string, string][] = [
      ['a signature with one bit changed', `${h}.${p}.${flipped.toString('base64url')}`],
      ['a payload changed after signing', `${h}.${Buffer.from(JSON.stringify({ ...claims(), htm: 'GET' })).toString('base64url')}.${sig}`],
      ['a signature with a character base64url does not have', `${h}.${p}.${sig.slice(0, -1)}+`],
      ['a crit header', signCompact(key, { ...header, crit: ['exp'] }, JSON.stringify(claims()))],
      ['an unencoded payload', signCompact(key, { ...header, b64: false, crit: ['b64'] }, JSON.stringify(claims()))],
      ['typ jwt', signCompact(key, { ...header, typ: 'jwt' }, JSON.stringify(claims()))],
      ['no typ', signCompact(key, { alg: 'ES256', jwk: key.publicJwk }, JSON.stringify(claims()))],
      ['an exp passed', signCompact(key, header, JSON.stringify({ ...claims(), exp: Math.floor(Date.now() / 1000) - 5 }))],
      ['claims that are an array', signCompact(key, header, JSON.stringify([claims()]))],
      ['claims that are not JSON', signCompact(key, header, 'htm=GET')],
      ['alg ES256 with a P-384 key', signCompact({ ...key, privateKey: p384.privateKey }, { ...header, jwk: p384Jwk }, JSON.stringify(claims()))],
      ['alg none', `${Buffer.from(JSON.stringify({ ...header, alg: 'none' })).toString('base64url')}.${p}.`],
    ];
    for (const [name, proof] of cases) {
      const res = await dpopCall(a.url, '/v1/projects', accessToken, proof);
      expect(res.status, name).toBe(401);
      await expectDpopRefusal(res, 'invalid_dpop_proof');
    }
  });

  it('works with an Ed25519 key (alg Ed25519 or EdDSA) from the token endpoint to /v1', async () => {
    const ed = await newDpopKey('Ed25519');
    const { tokens } = await boundTokens(a, clientId, user, ed);
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: ed.thumbprint });
    const claims = () => ({ htm: 'GET', htu: projects(), jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000), ath: createHash('sha256').update(tokens.access_token).digest('base64url') });
    for (const alg of ['Ed25519', 'EdDSA']) {
      const res = await dpopCall(b.url, '/v1/projects', tokens.access_token, signCompact(ed, { alg, typ: 'dpop+jwt', jwk: ed.publicJwk }, JSON.stringify(claims())));
      expect(res.status, alg).toBe(200);
    }
    // The same key's proof under the wrong alg is refused.
    await expectDpopRefusal(await dpopCall(a.url, '/v1/projects', tokens.access_token, signCompact(ed, { alg: 'ES256', typ: 'dpop+jwt', jwk: ed.publicJwk }, JSON.stringify(claims()))), 'invalid_dpop_proof');
  });

  it('refuses a replayed proof, on the same instance and on another one', async () => {
    const proof = await dpopProof(key, { htm: 'GET', htu: projects(), accessToken });
    expect((await dpopCall(a.url, '/v1/projects', accessToken, proof)).status).toBe(200);
    await expectDpopRefusal(await dpopCall(a.url, '/v1/projects', accessToken, proof), 'invalid_dpop_proof');
    await expectDpopRefusal(await dpopCall(b.url, '/v1/projects', accessToken, proof), 'invalid_dpop_proof');
    // Replay is keyed by (key, jti): the same jti in another proof (here for another path) is refused too.
    const sameJti = await dpopProof(key, { htm: 'GET', htu: `${a.url}/v1/users/me`, accessToken, jti: decodeJwt(proof).jti! });
    await expectDpopRefusal(await dpopCall(b.url, '/v1/users/me', accessToken, sameJti), 'invalid_dpop_proof');
  });

  it('accepts one proof exactly once when it is sent many times at once, on one instance and across two', async () => {
    for (const servers of [[a], [a, b]]) {
      const proof = await dpopProof(key, { htm: 'GET', htu: projects(), accessToken });
      const results = await race(24, (i) => dpopCall(servers[i % servers.length]!.url, '/v1/projects', accessToken, proof));
      const statuses = results.map((r) => r.status);
      console.log(`/v1: one proof sent 24 times at once on ${servers.length} instance(s): ${statuses.filter((s) => s === 200).length} accepted, ${statuses.filter((s) => s === 401).length} refused`);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(23);
    }
  });

  it('fresh proofs sent at once, on one instance and across two: each accepted once, their claims grouped into fewer inserts than requests', async () => {
    for (const servers of [[a], [a, b]]) {
      const proofs = await Promise.all(Array.from({ length: 20 }, () => dpopProof(key, { htm: 'GET', htu: projects(), accessToken })));
      let inserts = 0;
      const count = (event: { commandName: string; command: Record<string, unknown> }) => {
        if (event.commandName === 'insert' && event.command.insert === 'dpop_proofs') inserts += 1;
      };
      const clients = servers.map((s) => s.running.container.database.client);
      for (const client of clients) client.on('commandStarted', count);
      try {
        const results = await race(20, (i) => dpopCall(servers[i % servers.length]!.url, '/v1/projects', accessToken, proofs[i]!));
        expect(results.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
      } finally {
        for (const client of clients) client.off('commandStarted', count);
      }
      console.log(`/v1: 20 fresh proofs at once on ${servers.length} instance(s): ${inserts} inserts into dpop_proofs`);
      expect(inserts).toBeGreaterThan(0);
      expect(inserts).toBeLessThan(20);
      // Each is claimed once: presented again, every one is refused, on either instance.
      const again = await race(20, (i) => dpopCall(servers[(i + 1) % servers.length]!.url, '/v1/projects', accessToken, proofs[i]!));
      expect(again.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 401));
    }
  });

  it('asks for a nonce when the proof iat is too old; the retry with the nonce succeeds (and that nonce is good on the other instance)', async () => {
    const iat = Math.floor(Date.now() / 1000) - 600;
    const stale = await dpopCall(a.url, '/v1/projects', accessToken, await dpopProof(key, { htm: 'GET', htu: projects(), accessToken, iat }));
    await expectDpopRefusal(stale, 'use_dpop_nonce');
    const nonce = stale.headers.get('dpop-nonce')!;
    expect(nonce).toBeTruthy();
    expect((await dpopCall(a.url, '/v1/projects', accessToken, await dpopProof(key, { htm: 'GET', htu: projects(), accessToken, nonce }))).status).toBe(200);
    expect((await dpopCall(b.url, '/v1/projects', accessToken, await dpopProof(key, { htm: 'GET', htu: projects(), accessToken, nonce }))).status).toBe(200);
    // A nonce we never issued: use_dpop_nonce with a fresh one.
    await expectDpopRefusal(await dpopCall(a.url, '/v1/projects', accessToken, await dpopProof(key, { htm: 'GET', htu: projects(), accessToken, nonce: 'bogus' })), 'use_dpop_nonce');
  });

  it('refuses an unbound token sent with the DPoP scheme; unbound tokens stay plain Bearer', async () => {
    const plain = await obtainTokens({ issuer: a.issuer, clientId, redirectUri: callback.redirectUri, scope: 'read', email: user.email, password: user.password });
    expect(plain.token_type.toLowerCase()).toBe('bearer');
    const asBearer = await fetch(projects(), { headers: { authorization: `Bearer ${plain.access_token}` } });
    expect(asBearer.status).toBe(200);
    const res = await dpopCall(a.url, '/v1/projects', plain.access_token, await dpopProof(key, { htm: 'GET', htu: projects(), accessToken: plain.access_token }));
    await expectDpopRefusal(res, 'invalid_token');
  });

  it('binds the refresh token of a public client: it cannot be refreshed without the key, or with another key', async () => {
    const form = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId };
    const post = (headers: Record<string, string>) =>
      fetch(`${a.issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() });
    const without = await post({});
    expect(without.status).toBe(400);
    expect(((await without.json()) as { error: string }).error).toBe('invalid_grant');
    const other = await newDpopKey();
    const withOther = await post({ dpop: await dpopProof(other, { htm: 'POST', htu: `${a.issuer}/token` }) });
    expect(withOther.status).toBe(400);
    expect(((await withOther.json()) as { error: string }).error).toBe('invalid_grant');

    // With the key (openid-client): a new access token, still bound to the same key. A key-bound refresh
    // token is not rotated (RFC 9700 §2.2.2: sender-constrained or rotated): the same one comes back.
    const refreshed = await oidc.refreshTokenGrant(config, refreshToken, undefined, { DPoP: dpop });
    expect(refreshed.token_type.toLowerCase()).toBe('dpop');
    expect(refreshed.refresh_token).toBe(refreshToken);
    expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt: key.thumbprint });
    const res = await oidc.fetchProtectedResource(config, refreshed.access_token, new URL(projects()), 'GET', undefined, undefined, { DPoP: dpop });
    expect(res.status).toBe(200);
    refreshToken = refreshed.refresh_token!;
  });

  it('at the token endpoint too: one proof refreshes once, however many requests carry it at once, on one instance and across two', async () => {
    const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString();
    for (const servers of [[a], [a, b]]) {
      // Each instance is reached at its own address (both share PUBLIC_URL, which the proof's htu names);
      // the proofs carry one jti, which is what is claimed once.
      const jti = `refresh-burst-${servers.length}-${Date.now()}`;
      const proofs = await Promise.all(servers.map((server) => dpopProof(key, { htm: 'POST', htu: `${server.issuer}/token`, jti })));
      const results = await race(12, (i) =>
          fetch(`${servers[i % servers.length]!.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proofs[i % servers.length]! }, body }),
        );
      const statuses = results.map((r) => r.status);
      console.log(`token endpoint: one proof sent 12 times at once on ${servers.length} instance(s): ${statuses.filter((s) => s === 200).length} refreshed, ${statuses.filter((s) => s === 400).length} refused`);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 400)).toHaveLength(11);
      const refused = await Promise.all(results.filter((r) => r.status === 400).map(async (r) => ((await r.json()) as { error: string }).error));
      expect(new Set(refused)).toEqual(new Set(['invalid_grant']));
    }
  });
});

describe('a proof dated ahead at the token endpoint (RFC 9449 §11.1)', () => {
  // oidc-provider accepts a proof without a nonce whose iat is within 300 s of now, either way.
  const WINDOW = 300;

  it('is kept until max(now, iat) + the window, so it cannot be replayed after the first use + 300 s', async () => {
    const user = await makeUser(a, { role: 'developer' });
    const { client } = await makeClient(a, { account_id: user.account_id, redirect_uris: [callback.redirectUri] });
    const key = await newDpopKey();
    const { tokens } = await boundTokens(a, client._id, user, key);
    const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client._id }).toString();
    const refresh = (proof: string) => fetch(`${a.issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof }, body });

    const now = Math.floor(Date.now() / 1000);
    const ahead = { jti: `ahead-${now}`, iat: now + 290 };
    const proof = await dpopProof(key, { htm: 'POST', htu: `${a.issuer}/token`, ...ahead });
    expect((await refresh(proof)).status).toBe(200);
    const kept = await a.repos.dpopProofs.keptUntil(`oauth:${client._id}`, ahead.jti);
    expect(kept!.getTime()).toBeGreaterThanOrEqual((ahead.iat + WINDOW) * 1000);
    expect(kept!.getTime()).toBeLessThanOrEqual((ahead.iat + WINDOW + 1) * 1000);

    // 375 s after the first use (the sweeper's clock moved on; the proof's iat is then 85 s old, still
    // inside the window): the claim is still there, and the replay is refused.
    await a.repos.dpopProofs.sweep(new Date((now + 375) * 1000));
    const replay = await refresh(proof);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    // On the other instance too (reached at its own port; htu names PUBLIC_URL, as behind one address).
    const onB = (proof: string) => fetch(`${b.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: proof }, body });
    const replayOnB = await onB(await dpopProof(key, { htm: 'POST', htu: `${b.issuer}/token`, ...ahead }));
    expect(replayOnB.status).toBe(400);
    expect(((await replayOnB.json()) as { error: string }).error).toBe('invalid_grant');
    // Once no proof with that iat can be accepted any more, the sweeper removes it.
    await a.repos.dpopProofs.sweep(new Date((ahead.iat + WINDOW + 2) * 1000));
    expect(await a.repos.dpopProofs.keptUntil(`oauth:${client._id}`, ahead.jti)).toBeNull();

    // A proof dated in the past is kept for the window from now, not from its iat.
    const past = { jti: `past-${now}`, iat: now - 100 };
    // (On the other instance: the refresh token and key are still good there, so its refusal above was the replay.)
    expect((await onB(await dpopProof(key, { htm: 'POST', htu: `${b.issuer}/token`, ...past }))).status).toBe(200);
    const keptPast = (await a.repos.dpopProofs.keptUntil(`oauth:${client._id}`, past.jti))!.getTime();
    expect(keptPast).toBeGreaterThanOrEqual((now + WINDOW) * 1000);
    expect(keptPast).toBeLessThanOrEqual((Math.ceil(Date.now() / 1000) + WINDOW + 1) * 1000);
  });
});

describe('a client registered with dpop_bound_access_tokens', () => {
  it('gets no token without a DPoP proof, and bound tokens with one', async () => {
    const user = await makeUser(a, { role: 'developer' });
    const { client } = await makeClient(a, { account_id: user.account_id, redirect_uris: [callback.redirectUri], dpop_bound_access_tokens: true });
    expect(client.dpop_bound_access_tokens).toBe(true);
    await expect(obtainTokens({ issuer: a.issuer, clientId: client._id, redirectUri: callback.redirectUri, scope: 'read', email: user.email, password: user.password })).rejects.toThrow(
      /token endpoint: 400 invalid_grant/,
    );
    const key = await newDpopKey();
    const { tokens } = await boundTokens(a, client._id, user, key, 'read');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: key.thumbprint });
  });
});

describe('DPOP_NONCE_REQUIRED', () => {
  const strict = useTestServer({ overrides: { dpopNonceRequired: true } });

  it('the first proof gets use_dpop_nonce at the token endpoint and at /v1; openid-client retries with the nonce and succeeds', async () => {
    const user = await makeUser(strict, { role: 'developer' });
    const { client } = await makeClient(strict, { account_id: user.account_id, redirect_uris: [callback.redirectUri] });
    const key = await newDpopKey();
    // openid-client retries use_dpop_nonce once by itself, at the token endpoint and at /v1.
    const { config, dpop, tokens } = await boundTokens(strict, client._id, user, key, 'read');
    const viaClient = await oidc.fetchProtectedResource(config, tokens.access_token, new URL(`${strict.url}/v1/projects`), 'GET', undefined, undefined, { DPoP: dpop });
    expect(viaClient.status).toBe(200);

    const htu = `${strict.url}/v1/projects`;
    const first = await dpopCall(strict.url, '/v1/projects', tokens.access_token, await dpopProof(key, { htm: 'GET', htu, accessToken: tokens.access_token }));
    await expectDpopRefusal(first, 'use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce')!;
    const retry = await dpopCall(strict.url, '/v1/projects', tokens.access_token, await dpopProof(key, { htm: 'GET', htu, accessToken: tokens.access_token, nonce }));
    expect(retry.status).toBe(200);

    const token = await fetch(`${strict.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await dpopProof(key, { htm: 'POST', htu: `${strict.issuer}/token` }) },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client._id }).toString(),
    });
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error: string }).error).toBe('use_dpop_nonce');
    // The token endpoint's nonce is good at /v1 (one secret, one algorithm).
    const fromTokenEndpoint = token.headers.get('dpop-nonce')!;
    const withIt = await dpopCall(strict.url, '/v1/projects', tokens.access_token, await dpopProof(key, { htm: 'GET', htu, accessToken: tokens.access_token, nonce: fromTokenEndpoint }));
    expect(withIt.status).toBe(200);
  });
});
