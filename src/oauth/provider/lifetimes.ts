import type { Configuration } from 'oidc-provider';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** RFC 8628: how long a device code and its user code may be approved and polled (docs/product.md §12). */
export const DEVICE_CODE_TTL_SECONDS = 600;

/** How long each artifact lives (the provider's `ttl`). */
export const LIFETIMES: Configuration['ttl'] = {
  AccessToken: ACCESS_TOKEN_TTL_SECONDS,
  ClientCredentials: ACCESS_TOKEN_TTL_SECONDS,
  AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
  DeviceCode: DEVICE_CODE_TTL_SECONDS,
  IdToken: 3600,
  RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
  Grant: 365 * 24 * 3600,
  Session: 14 * 24 * 3600,
  Interaction: 3600,
};
