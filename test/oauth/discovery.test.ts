import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/fixtures.ts';

const server = useTestServer();

type Metadata = Record<string, unknown> & { grant_types_supported: string[]; scopes_supported: string[] };

async function getJson(url: string): Promise<{ status: number; body: Metadata }> {
  const res = await fetch(url);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: (await res.json()) as Metadata };
}

/** docs/product.md §1 and §4: what every client reads from the metadata before its first request. */
function expectMetadata(body: Metadata, issuer: string) {
  expect(body.issuer).toBe(issuer);
  expect(body.authorization_endpoint).toBe(`${issuer}/authorize`);
  expect(body.token_endpoint).toBe(`${issuer}/token`);
  expect(body.revocation_endpoint).toBe(`${issuer}/token/revocation`);
  expect(body.introspection_endpoint).toBe(`${issuer}/token/introspection`);
  expect(body.jwks_uri).toBe(`${issuer}/jwks`);
  expect(body.code_challenge_methods_supported).toEqual(['S256']);
  expect(body.authorization_response_iss_parameter_supported).toBe(true);
  expect(body.response_types_supported).toEqual(['code']);
  expect(body.scopes_supported).toEqual(expect.arrayContaining(['read', 'write', 'admin']));
  expect(body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
  expect(body.grant_types_supported).not.toContain('implicit');
  expect(body.grant_types_supported).not.toContain('password');
}

describe('authorization server metadata', () => {
  it('answers at {issuer}/.well-known/openid-configuration', async () => {
    const { status, body } = await getJson(`${server.issuer}/.well-known/openid-configuration`);
    expect(status).toBe(200);
    expect(server.issuer).toBe(`${server.url}/oauth`);
    expectMetadata(body, server.issuer);
  });

  it('answers the same document at the RFC 8414 path-inserted {base}/.well-known/oauth-authorization-server/oauth', async () => {
    const inserted = await getJson(`${server.url}/.well-known/oauth-authorization-server/oauth`);
    expect(inserted.status).toBe(200);
    expectMetadata(inserted.body, server.issuer);
    const openid = await getJson(`${server.issuer}/.well-known/openid-configuration`);
    expect(inserted.body).toEqual(openid.body);
  });

  it('lets openid-client discover the server from each document: oidc and oauth2 (RFC 8414) algorithms', async () => {
    const expected = {
      oidc: `${server.issuer}/.well-known/openid-configuration`,
      oauth2: `${server.url}/.well-known/oauth-authorization-server/oauth`,
    };
    for (const algorithm of ['oidc', 'oauth2'] as const) {
      const fetched: string[] = [];
      const config = await oidc.discovery(new URL(server.issuer), 'cli_discovery', undefined, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
        algorithm,
        [oidc.customFetch]: (url, init) => {
          fetched.push(url);
          return fetch(url, init);
        },
      });
      expect(fetched).toEqual([expected[algorithm]]);
      const metadata = config.serverMetadata();
      expect(metadata.issuer).toBe(server.issuer);
      expect(metadata.token_endpoint).toBe(`${server.issuer}/token`);
      expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
      expect(oidc.buildAuthorizationUrl(config, { redirect_uri: 'http://127.0.0.1:9/cb', scope: 'read' }).href).toMatch(
        new RegExp(`^${server.issuer}/authorize\\?`),
      );
    }
  });

  it('tells the truth: OpenID sign-in, userinfo, logout, DPoP, PAR, and every endpoint auth method as it really works', async () => {
    const { body } = await getJson(`${server.issuer}/.well-known/openid-configuration`);
    expect(body.userinfo_endpoint).toBe(`${server.issuer}/userinfo`);
    expect(body.end_session_endpoint).toBe(`${server.issuer}/session/end`);
    expect(body.pushed_authorization_request_endpoint).toBe(`${server.issuer}/request`);
    expect(body.require_pushed_authorization_requests).toBeUndefined();
    expect([...body.scopes_supported].sort()).toEqual(['admin', 'email', 'offline_access', 'openid', 'profile', 'read', 'write']);
    expect([...(body.claims_supported as string[])].sort()).toEqual(['auth_time', 'email', 'email_verified', 'iss', 'name', 'sid', 'sub']);
    expect(body.claims_parameter_supported).toBeUndefined();
    expect(body.subject_types_supported).toEqual(['public']);
    // Signed with our RSA keys only: client secrets are stored hashed, so HS256 could never be verified.
    expect(body.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(body.dpop_signing_alg_values_supported).toEqual(['ES256', 'Ed25519', 'EdDSA']);
    expect(body.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic']);
    expect(body.revocation_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic']);
    expect(body.introspection_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic']);
  });

  it('serves only public RSA signing keys at jwks_uri', async () => {
    const res = await fetch(`${server.issuer}/jwks`);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
      expect(typeof key.kid).toBe('string');
      expect(typeof key.n).toBe('string');
      expect(key.e).toBe('AQAB');
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth']) expect(key).not.toHaveProperty(secret);
    }
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('names /v1 as the resource and the issuer as its authorization server', async () => {
    const { status, body } = await getJson(`${server.url}/.well-known/oauth-protected-resource/v1`);
    expect(status).toBe(200);
    expect(body.resource).toBe(`${server.url}/v1`);
    expect(body.authorization_servers).toEqual([server.issuer]);
    expect(body.scopes_supported).toEqual(['read', 'write', 'admin']);
    expect(body.bearer_methods_supported).toEqual(['header']);
    expect(body.dpop_signing_alg_values_supported).toEqual(['ES256', 'Ed25519', 'EdDSA']);
    expect(body.dpop_bound_access_tokens_required).toBe(false);
  });
});
