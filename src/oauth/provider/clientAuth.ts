import crypto from 'node:crypto';
import type Provider from 'oidc-provider';
import { hashClientSecret } from '../../services/oauthClients.ts';
import { replaceClientSecretComparison } from './internals.ts';

/** What each token endpoint really accepts: public clients (`none`, client_id only) and HTTP Basic. */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_basic'] as const;

/** Client secrets are stored only as SHA-256: the hash of what was presented is compared, in constant time. */
export function compareHashedClientSecrets(provider: Provider): void {
  replaceClientSecretComparison(provider, (stored, presented) => {
    if (!stored || typeof presented !== 'string') return false;
    const a = Buffer.from(hashClientSecret(presented));
    const b = Buffer.from(stored);
    return a.length === b.length && crypto.timingSafeEqual(a, b);
  });
}
