import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, tokenRequest } from '../support/oauthDriver.ts';
import type { Api } from '../support/api.ts';
import { makeClient } from '../support/factories.ts';
import { expectRefused, useApiServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import type { Tokens, TestUser } from '../support/tokens.ts';

const env = useApiServer();
let api: Api, tokens: Tokens, server: TestServer, user: TestUser;
beforeAll(async () => {
  ({ api, tokens, server } = env);
  user = await tokens.user('developer', env.owner.accountId);
});

type Auth = { clientId: string; clientSecret?: string };

async function post(endpoint: 'introspection' | 'revocation', auth: Auth, form: Record<string, string>) {
  const res = await fetch(`${server.issuer}/token/${endpoint}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(auth.clientSecret ? { authorization: basicAuth(auth.clientId, auth.clientSecret) } : {}),
    },
    body: new URLSearchParams(auth.clientSecret ? form : { ...form, client_id: auth.clientId }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}
const introspect = async (auth: Auth, token: string) => {
  const res = await post('introspection', auth, { token });
  expect(res.status).toBe(200);
  return res.body!;
};

describe('RFC 7662 introspection of JWT access tokens', () => {
  it('a live user token: active, with its subject, client, scope, jti and expiry', async () => {
    const { access_token, clientId } = await tokens.forUser(user, 'read write', { clientId: await tokens.publicClient(user.accountId, true) });
    const claims = decodeJwt(access_token);
    expect(await introspect({ clientId }, access_token)).toMatchObject({
      active: true,
      sub: user.id,
      client_id: clientId,
      scope: 'read write',
      jti: claims.jti,
      exp: claims.exp,
      iat: claims.iat,
      iss: server.issuer,
      token_type: 'Bearer',
    });
  });

  it('an expired token is inactive (the same claims unexpired are active)', async () => {
    const { access_token, clientId } = await tokens.forUser(user, 'read', { clientId: await tokens.publicClient(user.accountId, true) });
    const claims = decodeJwt(access_token);
    const now = Math.floor(Date.now() / 1000);
    const { sub, client_id, acct, gid, scope } = claims as Record<string, string>;
    const base = { sub, client_id, acct, gid, scope };
    expect(await introspect({ clientId }, await tokens.forge({ ...base, jti: randomUUID(), iat: now - 60, exp: now + 600 }))).toMatchObject({ active: true });
    expect(await introspect({ clientId }, await tokens.forge({ ...base, jti: randomUUID(), iat: now - 3700, exp: now - 100 }))).toEqual({ active: false });
  });

  it("another client learns nothing about a token (RFC 7662 §4: a client's own tokens only)", async () => {
    const { access_token } = await tokens.forUser(user, 'read', { clientId: await tokens.publicClient(user.accountId, true) });
    const { client, clientSecret } = await makeClient(server, { account_id: user.accountId, redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'] });
    expect(await introspect({ clientId: client._id, clientSecret: clientSecret! }, access_token)).toEqual({ active: false });
  });

  it('client authentication is the endpoint’s own: a wrong secret is 401 invalid_client', async () => {
    const { token, clientId } = await tokens.forClient(env.owner.accountId, 'read');
    const res = await post('introspection', { clientId, clientSecret: 'slwcs_wrong' }, { token });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'invalid_client' });
  });
});

describe('RFC 7009 revocation of JWT access tokens', () => {
  it('a revoked user token is inactive and refused by /v1 from the next request', async () => {
    const { access_token, clientId } = await tokens.forUser(user, 'read', { clientId: await tokens.publicClient(user.accountId, true) });
    expect((await api.get('/v1/projects', { token: access_token })).status).toBe(200);
    const res = await post('revocation', { clientId }, { token: access_token, token_type_hint: 'access_token' });
    expect(res.status).toBe(200);
    expectRefused(await api.get('/v1/projects', { token: access_token }), 401, 'invalid_token');
    expect(await introspect({ clientId }, access_token)).toEqual({ active: false });
  });

  it('a revoked client_credentials token likewise; the client can still get a new one', async () => {
    const { client, clientSecret } = await makeClient(server, { account_id: env.owner.accountId, redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'] });
    const auth = { clientId: client._id, clientSecret: clientSecret! };
    const { access_token } = await tokenRequest(server.issuer, auth, { grant_type: 'client_credentials', scope: 'read' });
    expect(await introspect(auth, access_token)).toMatchObject({ active: true, client_id: client._id, scope: 'read', token_type: 'Bearer' });

    expect((await post('revocation', auth, { token: access_token })).status).toBe(200);
    expect(await introspect(auth, access_token)).toEqual({ active: false });
    expectRefused(await api.get('/v1/projects', { token: access_token }), 401, 'invalid_token');

    const fresh = await tokenRequest(server.issuer, auth, { grant_type: 'client_credentials', scope: 'read' });
    expect((await api.get('/v1/projects', { token: fresh.access_token })).status).toBe(200);
  });

  it("a client cannot revoke another client's access token", async () => {
    const { access_token } = await tokens.forUser(user, 'read', { clientId: await tokens.publicClient(user.accountId, true) });
    const other = await tokens.publicClient(user.accountId, true);
    expect((await post('revocation', { clientId: other }, { token: access_token })).status).toBe(200);
    expect((await api.get('/v1/projects', { token: access_token })).status).toBe(200);
  });
});
