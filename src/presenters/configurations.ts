import type { ConfigurationDoc } from '../repositories/configurations.ts';
import type { Configuration } from '../schemas/configurations.ts';

/**
 * The API object. A secret's value is `null` unless the service opened it for a caller who asked to
 * reveal it (`revealed`; the route lets only the admin scope ask).
 */
export function presentConfiguration(doc: ConfigurationDoc & { revealed?: string }): Configuration {
  return {
    id: doc._id,
    project_id: doc.project_id,
    environment: doc.environment,
    key: doc.key,
    value: doc.secret ? (doc.revealed ?? null) : doc.value,
    secret: doc.secret,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}
