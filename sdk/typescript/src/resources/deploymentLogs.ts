// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.deploymentLogs`: the operations tagged "Deployment logs".
 */
export class DeploymentLogs extends Resource {
  /**
   * Read or follow a deployment's log.
   *
   * A page of lines after `after`, in order; `complete` once the deployment has finished and the
   * page reaches the last line stored. With `Accept: text/event-stream`: Server-Sent Events,
   * starting after `Last-Event-ID` (a reconnecting EventSource sends it) or else after `after`.
   * `event: line` with `id: <seq>` and `data: {seq, stream, text, timestamp}`, one per line, in
   * order, none skipped; `event: status` with the deployment as `data` when its status changes;
   * `event: end` with `data: {status, last_seq}` once the deployment has finished and every line
   * stored by then was sent (within 10 s of the finish); the stream then closes (later lines: read
   * or follow again). A comment line (`: keep-alive`) every 15 s of silence. A line written on any
   * instance arrives within 1 s. A credential holds at most 20 streams at once (429 `rate_limited`
   * beyond); a stream closes once its credential is revoked or expires, and when its reader is too
   * slow to take what is sent (reconnect with `Last-Event-ID`).
   *
   * `GET /v1/projects/{project_id}/deployments/{deployment_id}/logs`
   */
  read(projectId: string, deploymentId: string, params?: operations['readDeploymentLog']['parameters']['query'], options?: RequestOptions): Promise<Schemas['LogPage']> {
    return this.call({ method: 'GET', path: '/v1/projects/{project_id}/deployments/{deployment_id}/logs', pathParams: [projectId, deploymentId], query: params }, options);
  }

  /**
   * Append lines to a deployment's log.
   *
   * A deployer sends its output: 1–1,000 lines, at most 1 MiB a request and 8 KiB a line. The lines
   * get the next numbers of the deployment's log, one contiguous range per request, whatever the
   * number of writers. Any value of a secret configuration of the project (8 characters or longer)
   * in a line is stored as `***`. Taken until 10 minutes after the deployment finished (then 409
   * `deployment_finished`); a log that reached LOG_MAX_LINES or LOG_MAX_BYTES answers 409
   * `log_full` and ends with one `system` line saying it was cut.
   *
   * `POST /v1/projects/{project_id}/deployments/{deployment_id}/logs` (safe to retry: sends an
   * `Idempotency-Key`)
   */
  append(projectId: string, deploymentId: string, params: Schemas['AppendLog'], options?: RequestOptions): Promise<Schemas['AppendLogResult']> {
    return this.call({ method: 'POST', path: '/v1/projects/{project_id}/deployments/{deployment_id}/logs', pathParams: [projectId, deploymentId], body: params, idempotent: true }, options);
  }
}
