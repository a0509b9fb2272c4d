import type { ClientGrantType, OAuthClientDoc } from '../repositories/oauthClients.ts';
import type { OAuthClient } from '../schemas/oauthClients.ts';

/** The API object of a stored client: never the secret's hash. */
export function presentClient(doc: OAuthClientDoc): OAuthClient {
  return {
    client_id: doc._id,
    client_name: doc.client_name,
    redirect_uris: doc.redirect_uris,
    token_endpoint_auth_method: doc.token_endpoint_auth_method,
    // The device grant belongs to the first-party CLI alone, a client of no account, never presented here.
    grant_types: doc.grant_types.filter((g): g is ClientGrantType => g !== 'urn:ietf:params:oauth:grant-type:device_code'),
    scope: doc.scope,
    first_party: doc.first_party,
    dpop_bound_access_tokens: doc.dpop_bound_access_tokens ?? false,
    require_pushed_authorization_requests: doc.require_pushed_authorization_requests ?? false,
    account_id: doc.account_id,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}
