import type { Db } from 'mongodb';
import type { DeploymentRepository } from './deployments.ts';
import { blankEnvironment, type EnvironmentRepository } from './environments.ts';
import { oneTimePass, type MigrationOptions } from './migrations.ts';
import type { ProjectRepository } from './projects.ts';

const FROM_DEPLOYMENTS = 'environments-from-deployments';

/**
 * The environments that deployments went to before environments existed (docs/product.md §9) are made,
 * without rules and without events, once per database: one pass over the projects, each project's
 * environment names read once. After it a list of environments reads environments only, however many
 * deployments a project has. Idempotent (an environment already there is kept) and safe beside the same
 * pass on another instance (the unique name per project decides). At start once (a marker); every pass
 * under `slipway db migrate`, which also picks up deployments written meanwhile by an older version.
 */
export async function migrateEnvironments(
  db: Db,
  repos: { projects: ProjectRepository; deployments: DeploymentRepository; environments: EnvironmentRepository },
  options: MigrationOptions = {},
): Promise<number> {
  return await oneTimePass(db, FROM_DEPLOYMENTS, options, async () => {
    let made = 0;
    const projects = repos.projects.collection.find({}, { projection: { _id: 1, account_id: 1 } }) as unknown as AsyncIterable<{ _id: string; account_id: string }>;
    for await (const project of projects) {
      const names = await repos.deployments.environments(project.account_id, project._id);
      for (const name of names) if (await repos.environments.insert(blankEnvironment(project, name, new Date()))) made++;
    }
    return made;
  });
}
