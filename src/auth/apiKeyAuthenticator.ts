import { invalidToken } from '../errors.ts';
import { API_KEY_PREFIX, hashApiKey, looksLikeApiKey } from '../lib/apiKeyFormat.ts';
import type { ApiKeyDoc, ApiKeyRepository } from '../repositories/apiKeys.ts';
import type { ApiKeySecretRepository } from '../repositories/apiKeySecrets.ts';
import type { ApiKeyUsageRepository } from '../repositories/apiKeyUsage.ts';
import { LRUCache } from 'lru-cache';
import type { Changes } from '../lib/changes.ts';
import { RecordCache } from '../lib/recordCache.ts';
import type { Authenticator } from './authenticators.ts';
import { expandScopes, type Principal } from '../domain/principal.ts';

export interface ApiKeyAuthenticatorOptions {
  /** How long a found key is trusted without asking the database again; at most 30 s. */
  cacheTtlMs?: number;
  /** How long an unknown well-formed key is remembered as unknown. */
  negativeTtlMs?: number;
  /** Bound on remembered keys; the oldest entry goes first. */
  maxEntries?: number;
  /** Clock, in milliseconds (tests). */
  now?: () => number;
  /** A failed `last_used_at` write (never fails the request). */
  onError?: (err: unknown) => void;
  /** The process's change emitter: a key revoked or rotated here is dropped from the cache at once. */
  changes?: Changes;
}

interface Found {
  key: ApiKeyDoc;
  secretExpiresAt: number | null;
}

const MAX_TTL_MS = 30_000;
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * The /v1 credential for API keys: every `slw_…` bearer token is this authenticator's (the shape,
 * checksum included, is then checked without a database lookup). A key that is malformed, unknown,
 * revoked, expired or rotated out past its grace period → 401 `invalid_token`; a valid one acts as its
 * project with its scopes (Principal kind `api_key`, `projectId` set).
 *
 * An in-process cache keeps a busy key from costing a database round trip.
 *
 * Revocation guarantee (docs/product.md §2, ≤ 60 s across instances): a cache entry is trusted for at most
 * 30 s, then re-read; expiry times (the key's `expires_at`, a rotated-out secret's grace end) are
 * compared with the clock on every use, so they take effect exactly. Revocations and rotations made by
 * this process drop the entry at once.
 */
export function createApiKeyAuthenticator(
  repos: { apiKeys: ApiKeyRepository; apiKeySecrets: ApiKeySecretRepository; apiKeyUsage: ApiKeyUsageRepository },
  options: ApiKeyAuthenticatorOptions = {},
): Authenticator {
  const ttl = Math.min(options.cacheTtlMs ?? MAX_TTL_MS, MAX_TTL_MS);
  const negativeTtl = Math.min(options.negativeTtlMs ?? 5_000, ttl);
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  /** When this process last recorded a use of each key. */
  const lastTouched = new LRUCache<string, number>({ max: maxEntries });
  const cache = new RecordCache<Found>(
    async (hash) => {
      const secret = await repos.apiKeySecrets.findByHash(hash);
      const key = secret ? await repos.apiKeys.findById(secret.key_id) : null;
      return secret && key ? { key, secretExpiresAt: secret.expires_at?.getTime() ?? null } : null;
    },
    { ttlMs: ttl, missTtlMs: negativeTtl, max: maxEntries, now },
  );

  options.changes?.on('apiKeyChanged', (keyId) => cache.forgetWhere((found) => found.key._id === keyId));

  function touch(keyId: string, at: number): void {
    const last = lastTouched.get(keyId);
    if (last !== undefined && at - last < LAST_USED_GRANULARITY_MS) return;
    // Remembered locally first, so this instance tries at most once a minute per key.
    lastTouched.set(keyId, at);
    void repos.apiKeyUsage.touch(keyId, new Date(at)).catch((err: unknown) => options.onError?.(err));
  }

  /** The key's principal, or null when the token is not a working key. */
  async function principalOf(token: string): Promise<Principal | null> {
    if (!looksLikeApiKey(token)) return null;
    const found = await cache.get(hashApiKey(token));
    if (!found) return null;
    const { key, secretExpiresAt } = found;
    const at = now();
    if (secretExpiresAt !== null && secretExpiresAt <= at) return null;
    if (key.status !== 'active') return null;
    if (key.expires_at && key.expires_at.getTime() <= at) return null;
    touch(key._id, at);
    return {
      kind: 'api_key',
      id: key._id,
      accountId: key.account_id,
      scopes: expandScopes(key.scopes),
      projectId: key.project_id,
      credential: 'api_key',
      credentialId: key._id,
    };
  }

  return {
    name: 'api_key',
    accepts: (token) => token.startsWith(API_KEY_PREFIX),
    async authenticate(token) {
      const principal = await principalOf(token);
      if (!principal) throw invalidToken('The API key is invalid, expired, revoked or rotated out.');
      return principal;
    },
  };
}
