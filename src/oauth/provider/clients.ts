import { errors, type Configuration } from 'oidc-provider';
import { clientMayCallFrom } from '../../http/cors.ts';

/** The client metadata Slipway adds (repositories/oidc/clients.ts sets them from the stored client). */
export const extraClientMetadata: Configuration['extraClientMetadata'] = {
  properties: ['first_party', 'account_id'],
  validator(_ctx, key, value) {
    if (key === 'first_party' && typeof value !== 'boolean') throw new errors.InvalidClientMetadata('first_party must be a boolean');
    if (key === 'account_id' && typeof value !== 'string') throw new errors.InvalidClientMetadata('account_id must be a string');
  },
};

/**
 * The same origin rule as /v1 (src/http/cors.ts), narrowed to the client: a configured origin or one
 * of this client's redirect origins. Confidential clients are not browser apps: never cross-origin.
 */
export function clientBasedCORS(configuredOrigins: string[]): NonNullable<Configuration['clientBasedCORS']> {
  const corsOrigins = new Set(configuredOrigins.map((o) => new URL(o).origin));
  return (_ctx, origin, client) => client.clientAuthMethod === 'none' && clientMayCallFrom(corsOrigins, origin, client.redirectUris);
}
