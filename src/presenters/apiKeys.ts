import type { ApiKeyDoc } from '../repositories/apiKeys.ts';
import type { ApiKey, IssuedApiKey } from '../schemas/apiKeys.ts';

/** Never includes a hash or the secret; `expired` is shown for an active key past its `expires_at`. */
export function presentApiKey(doc: ApiKeyDoc, now = new Date()): ApiKey {
  const status = doc.status === 'active' && doc.expires_at && doc.expires_at <= now ? 'expired' : doc.status;
  return {
    id: doc._id,
    name: doc.name,
    project_id: doc.project_id,
    scopes: doc.scopes,
    prefix: doc.prefix,
    last_four: doc.last_four,
    status,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
    created_by: { type: doc.created_by.type, id: doc.created_by.id },
    last_used_at: doc.last_used_at?.toISOString() ?? null,
    expires_at: doc.expires_at?.toISOString() ?? null,
    rotated_at: doc.rotated_at?.toISOString() ?? null,
  };
}

/**
 * The create and rotate responses: the key object plus the secret, as `key`, this once (`null` for a
 * key an earlier run of the same request made).
 */
export function presentIssuedApiKey(issued: { apiKey: ApiKeyDoc; key: string | null }): IssuedApiKey {
  return { ...presentApiKey(issued.apiKey), key: issued.key };
}
