import type { Project } from '../schemas/projects.ts';
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
