import { errors, type Configuration } from 'oidc-provider';

type Features = NonNullable<Configuration['features']>;

/**
 * Introspection: a client learns about its own tokens only: a confidential client of one account must
 * not read the subject, scopes and expiry of tokens issued to another account's client.
 */
export const introspection = {
  enabled: true,
  allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
} satisfies Features['introspection'];

/**
 * RFC 7009 §2.1: a client may revoke only tokens issued to it. A public client presenting another
 * client's token gets the same 200 as for an unknown token; a confidential one is told it may not.
 */
export const revocation = {
  enabled: true,
  allowedPolicy: (_ctx, client, token) => {
    if (token.clientId === client.clientId) return true;
    if (client.clientAuthMethod === 'none') return false;
    throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
  },
} satisfies Features['revocation'];
