import { iso } from '../lib/time.ts';
import type { DeploymentDoc } from '../repositories/deployments.ts';
import type { Deployment } from '../schemas/deployments.ts';

export function presentDeployment(doc: DeploymentDoc): Deployment {
  return {
    id: doc._id,
    project_id: doc.project_id,
    environment: doc.environment,
    branch: doc.branch,
    commit_sha: doc.commit_sha,
    status: doc.status,
    status_message: doc.status_message,
    url: doc.url,
    created_by: { type: doc.created_by.type, id: doc.created_by.id },
    kind: doc.kind ?? 'deploy',
    source_deployment_id: doc.source_deployment_id ?? null,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
    started_at: iso(doc.started_at),
    finished_at: iso(doc.finished_at),
  };
}
