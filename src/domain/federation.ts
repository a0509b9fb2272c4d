/**
 * CI without stored secrets (docs/product.md §13): the names the token exchange (RFC 8693) is spoken
 * in, shared by the authorization server that issues the token and /v1 that reads it.
 */

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The subject token types accepted: a JWT, or an OpenID Connect ID token (the same thing to us). */
export const SUBJECT_TOKEN_TYPES = ['urn:ietf:params:oauth:token-type:jwt', 'urn:ietf:params:oauth:token-type:id_token'] as const;
export const ISSUED_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * The authorization server's own client that every exchange is made as: no tenant registers it and it
 * has no secret (the subject token is the only credential). Tenant clients are `cli_…`, so it never
 * collides with one.
 */
export const TOKEN_EXCHANGE_CLIENT_ID = 'slipway-token-exchange';

/** The largest subject token accepted (16 KiB). */
export const MAX_SUBJECT_TOKEN_BYTES = 16 * 1024;

/** Whether a credential limited to `environments` (null: all) may act on `environment`. */
export function environmentAllowed(environments: readonly string[] | null | undefined, environment: string): boolean {
  return environments === null || environments === undefined || environments.includes(environment);
}
