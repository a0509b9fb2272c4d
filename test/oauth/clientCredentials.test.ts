import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeClient, makeUser } from '../support/factories.ts';
import { useTestServer } from '../support/fixtures.ts';
import { discoverConfidentialClient } from '../support/oauthFlow.ts';
import { tokenPost } from '../support/concurrency.ts';

const server = useTestServer();
let accountId: string;
let service: { clientId: string; secret: string };

beforeAll(async () => {
  accountId = (await makeUser(server)).account_id;
  const { client, clientSecret } = await makeClient(server, {
    account_id: accountId,
    client_name: 'Deploy bot',
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['client_credentials'],
    scope: 'read write',
  });
  service = { clientId: client._id, secret: clientSecret! };
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const tokenRequest = (params: Record<string, string>, authorization?: string) => tokenPost(server, params, authorization ? { authorization } : {});

describe('client_credentials', () => {
  it('issues a one-hour JWT access token for /v1 that acts as the client\'s account', async () => {
    const config = await discoverConfidentialClient(server.issuer, service.clientId, service.secret);
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'read write' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('read write');
    expect(tokens.refresh_token).toBeUndefined();

    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/jwks`));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: server.issuer, audience: `${server.url}/v1`, typ: 'at+jwt' });
    expect(payload.acct).toBe(accountId);
    expect(payload.client_id).toBe(service.clientId);
    // RFC 9068 §2.2: with no resource owner, sub is the client's own identifier.
    expect(payload.sub).toBe(service.clientId);
    expect(payload.scope).toBe('read write');
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload).not.toHaveProperty('gid');
  });

  it('refuses a wrong secret with 401 invalid_client', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'read' }, basic(service.clientId, `${service.secret}x`));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.body).not.toHaveProperty('access_token');
    expect(JSON.stringify(res.body)).not.toContain(service.secret);
  });

  it('refuses an unknown scope with invalid_scope', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'read bogus' }, basic(service.clientId, service.secret));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
  });

  it('refuses a scope the client is not registered for with invalid_scope', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'admin' }, basic(service.clientId, service.secret));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_scope');
  });

  it('is not available to a public client', async () => {
    const { client } = await makeClient(server, { account_id: accountId });
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'read', client_id: client._id });
    // oidc-provider answers invalid_request here (RFC 6749 §5.2 would suggest unauthorized_client).
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', error_description: 'requested grant type is not allowed for this client' });
    expect(res.body).not.toHaveProperty('access_token');
  });

  it('is not available to a confidential client registered without the grant', async () => {
    const { client, clientSecret } = await makeClient(server, {
      account_id: accountId,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'read' }, basic(client._id, clientSecret!));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', error_description: 'requested grant type is not allowed for this client' });
  });
});
