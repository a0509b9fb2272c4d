import type { Context } from 'koa';
import { created, sendCreated } from '../../../http/created.ts';
import { presentDeployment } from '../../../presenters/deployments.ts';
import { Deployment } from '../../../schemas/deployments.ts';
import type { DeploymentDoc } from '../../../services/deployments.ts';

/** The documented success of a route that makes a deployment (create, redeploy or promote, rollback). */
export const newDeployment = (description: string) => created(description, Deployment, 'URL of the new deployment.');

/** The answer of a route that made a deployment: 201, the deployment, its URL in `Location`. */
export function sendNewDeployment(ctx: Context, publicUrl: string, deployment: DeploymentDoc): void {
  sendCreated(ctx, publicUrl, `/v1/projects/${deployment.project_id}/deployments/${deployment._id}`, presentDeployment(deployment));
}
