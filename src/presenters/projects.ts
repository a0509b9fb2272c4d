import type { Project } from '../routes/v1/projects/schema.ts';
import type { ProjectDoc } from '../repositories/projects.ts';

/** The API object of a stored project: no `_id`, no folded name, ISO timestamps. */
export function presentProject(doc: ProjectDoc): Project {
  return {
    id: doc._id,
    name: doc.name,
    status: doc.status,
    deploy_target: doc.deploy_target,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}
