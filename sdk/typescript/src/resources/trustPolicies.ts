// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.trustPolicies`: the operations tagged "Trust policies".
 */
export class TrustPolicies extends Resource {
  /**
   * List trust policies of a project.
   *
   * Oldest first. Only for user and client credentials.
   *
   * `GET /v1/projects/{project_id}/trust_policies`
   */
  list(projectId: string, params?: operations['listTrustPolicies']['parameters']['query'], options?: RequestOptions): Promise<Schemas['TrustPolicyList']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/trust_policies', pathParams: [projectId], query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/projects/{project_id}/trust_policies`
   */
  listAll(projectId: string, params?: operations['listTrustPolicies']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['TrustPolicy'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/projects/{project_id}/trust_policies', pathParams: [projectId], query: params }, options);
  }

  /**
   * Create a trust policy.
   *
   * Lets CI tokens of `issuer` whose `aud` holds `audience` and whose claims equal every value of
   * `claims` be exchanged (RFC 8693, at the token endpoint, with no secret) for a token acting as
   * this project with `scopes`, deploying only to `environments`. Archived projects refuse it. Only
   * for user and client credentials.
   *
   * `POST /v1/projects/{project_id}/trust_policies` (safe to retry: sends an `Idempotency-Key`)
   */
  create(projectId: string, params: Schemas['CreateTrustPolicy'], options?: RequestOptions): Promise<Schemas['TrustPolicy']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/trust_policies', pathParams: [projectId], body: params, idempotent: true }, options);
  }

  /**
   * Get a trust policy.
   *
   * Only for user and client credentials.
   *
   * `GET /v1/projects/{project_id}/trust_policies/{trust_policy_id}`
   */
  get(projectId: string, trustPolicyId: string, options?: RequestOptions): Promise<Schemas['TrustPolicy']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/trust_policies/{trust_policy_id}', pathParams: [projectId, trustPolicyId] }, options);
  }

  /**
   * Delete a trust policy.
   *
   * Tokens exchanged through it stop working (at once on this instance, within the revocation
   * refresh on the others). Only for user and client credentials.
   *
   * `DELETE /v1/projects/{project_id}/trust_policies/{trust_policy_id}`
   */
  delete(projectId: string, trustPolicyId: string, options?: RequestOptions): Promise<void> {
    return this.call({ method: 'DELETE', path: '/v1/projects/{project_id}/trust_policies/{trust_policy_id}', pathParams: [projectId, trustPolicyId] }, options);
  }
}
