import type { AdapterPayload } from 'oidc-provider';
import type { OAuthClientDoc } from '../oauthClients.ts';

/**
 * Scopes every client may ask for on top of its registered API scopes: OpenID Connect sign-in (`openid`,
 * `profile`, `email`: an ID token and userinfo) and working offline.
 */
const PROTOCOL_SCOPES = ['openid', 'profile', 'email', 'offline_access'];

/** Maps a stored client to the metadata oidc-provider validates and serves (the adapter's `Client` model). */
export function clientMetadata(doc: OAuthClientDoc): AdapterPayload {
  const nativeRedirect = doc.redirect_uris.some((u) => !/^https:/.test(u));
  return {
    client_id: doc._id,
    client_name: doc.client_name,
    redirect_uris: doc.redirect_uris,
    grant_types: doc.grant_types,
    response_types: doc.grant_types.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: doc.token_endpoint_auth_method,
    application_type: nativeRedirect ? 'native' : 'web',
    scope: [...new Set([...PROTOCOL_SCOPES, ...doc.scope.split(' ')])].join(' '),
    ...(doc.client_secret_hash ? { client_secret: doc.client_secret_hash } : {}),
    first_party: doc.first_party,
    account_id: doc.account_id,
    // RFC 9449 §5.2 and RFC 9126 §6; clients stored before these settings existed have neither.
    dpop_bound_access_tokens: doc.dpop_bound_access_tokens ?? false,
    require_pushed_authorization_requests: doc.require_pushed_authorization_requests ?? false,
  } as AdapterPayload;
}
