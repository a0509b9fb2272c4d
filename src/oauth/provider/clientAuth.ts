import crypto from 'node:crypto';
import type Provider from 'oidc-provider';
import { hashClientSecret } from '../../services/oauthClients.ts';

/** What each token endpoint really accepts: public clients (`none`, client_id only) and HTTP Basic. */
export const CLIENT_AUTH_METHODS = ['none', 'client_secret_basic'] as const;

/** Client secrets are stored only as SHA-256: the hash of what was presented is compared, in constant time. */
export function compareHashedClientSecrets(provider: Provider): void {
  const clientProto = provider.Client.prototype as unknown as { compareClientSecret(actual: string): boolean; clientSecret?: string };
  clientProto.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual: string) {
    if (!this.clientSecret || typeof actual !== 'string') return false;
    const a = Buffer.from(hashClientSecret(actual));
    const b = Buffer.from(this.clientSecret);
    return a.length === b.length && crypto.timingSafeEqual(a, b);
  };
}
