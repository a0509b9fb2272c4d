import type { TrustPolicyDoc } from '../repositories/trustPolicies.ts';
import type { TrustPolicy } from '../schemas/trustPolicies.ts';

export function presentTrustPolicy(doc: TrustPolicyDoc): TrustPolicy {
  return {
    id: doc._id,
    project_id: doc.project_id,
    name: doc.name,
    issuer: doc.issuer,
    audience: doc.audience,
    claims: Object.fromEntries(doc.claims.map((c) => [c.name, c.value])),
    scopes: doc.scopes as TrustPolicy['scopes'],
    environments: doc.environments,
    max_ttl_seconds: doc.max_ttl_seconds,
    created_at: doc.created_at.toISOString(),
    created_by: { type: doc.created_by.type, id: doc.created_by.id },
  };
}
