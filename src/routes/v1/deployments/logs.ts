import type { ApiContext } from '../../../http/apiContext.ts';
import type { ApiRouter } from '../../../http/apiRouter.ts';
import { lastEventId, openEventStream, wantsEventStream, type EventStream, type EventStreamDeps } from '../../../http/eventStream.ts';
import { requireScope } from '../../../http/requireScope.ts';
import { validate } from '../../../http/validate.ts';
import { newId } from '../../../lib/ids.ts';
import { presentLogLine } from '../../../presenters/deploymentLogs.ts';
import { presentDeployment } from '../../../presenters/deployments.ts';
import { AppendLogBody, AppendLogResult, LOG_LIMITS, LogPage, ReadLogQuery } from '../../../schemas/deploymentLogs.ts';
import { DeploymentParams } from '../../../schemas/deployments.ts';
import type { ProjectParams } from '../../../schemas/projects.ts';
import type { FollowEvent, FollowSink } from '../../../services/logFollowers.ts';
import type { V1Deps } from '../deps.ts';

const tags = ['Deployment logs'];

const FOLLOW_EVENTS = [
  'With `Accept: text/event-stream`: Server-Sent Events, starting after `Last-Event-ID` (a reconnecting EventSource sends it) or else after `after`.',
  '`event: line` with `id: <seq>` and `data: {seq, stream, text, timestamp}`, one per line, in order, none skipped;',
  '`event: status` with the deployment as `data` when its status changes;',
  '`event: end` with `data: {status, last_seq}` once the deployment has finished and every line stored by then was sent (within 10 s of the finish); the stream then closes (later lines: read or follow again).',
  'A comment line (`: keep-alive`) every 15 s of silence. A line written on any instance arrives within 1 s.',
  'A credential holds at most 20 streams at once (429 `rate_limited` beyond); a stream closes once its credential is revoked or expires, and when its reader is too slow to take what is sent (reconnect with `Last-Event-ID`).',
].join(' ');

export const DEPLOYMENT_EVENTS = [
  'With `Accept: text/event-stream`: Server-Sent Events of the project\'s deployments as they change (filters do not apply):',
  '`event: deployment` with `id: <updated_at in ms>` and the deployment as `data`, from now on, or after `Last-Event-ID` when sent.',
  'A comment line (`: keep-alive`) every 15 s of silence; the same limit of 20 streams per credential as the log streams, and the stream closes once the credential is revoked or expires.',
].join(' ');

function streamDeps({ services, config }: V1Deps): EventStreamDeps {
  return {
    places: services.streamPlaces,
    followers: services.logFollowers,
    heartbeatMs: config.logHeartbeatMs,
    stallMs: config.logStreamStallMs,
    recheckMs: config.logStreamRecheckMs,
  };
}

/** GET …/deployments with `Accept: text/event-stream`: the project's deployment changes (docs/product.md §10). */
export async function followDeployments(ctx: ApiContext<{ params: ProjectParams }>, deps: V1Deps): Promise<void> {
  const project = await deps.services.deploymentLogs.projectToFollow(ctx.state.principal, ctx.input.params.project_id);
  const since = lastEventId(ctx) ?? Date.now();
  await openEventStream(ctx, streamDeps(deps), (stream) =>
    deps.services.deploymentFeeds.follow(project, since, {
      send: (deployment) => stream.send('deployment', presentDeployment(deployment), deployment.updated_at.getTime()),
      drained: () => stream.drained(),
      close: (reason) => stream.close(reason === 'slow' ? 'closed: the reader is too slow; reconnect with Last-Event-ID' : undefined),
      get closed() {
        return stream.closed;
      },
      onClose: (listener) => stream.onClose(listener),
    }),
  );
}

/** A follower's events as Server-Sent Events on `stream`. */
function sseSink(stream: EventStream): FollowSink {
  const send = (event: FollowEvent): boolean => {
    switch (event.type) {
      case 'line':
        return stream.send('line', presentLogLine(event.line), event.line.seq);
      case 'status':
        return stream.send('status', presentDeployment(event.deployment));
      case 'end':
        return stream.send('end', { status: event.deployment.status, last_seq: event.lastSeq });
    }
  };
  return {
    send,
    drained: () => stream.drained(),
    close: (reason) => stream.close(reason === 'slow' ? 'closed: the reader is too slow; reconnect with Last-Event-ID' : undefined),
    get closed() {
      return stream.closed;
    },
    onClose: (listener) => stream.onClose(listener),
  };
}

export function registerDeploymentLogRoutes(api: ApiRouter, deps: V1Deps): void {
  const { authenticate, idempotent, services } = deps;
  const { deploymentLogs, logFollowers } = services;
  const streams = streamDeps(deps);

  api.post(
    '/projects/:project_id/deployments/:deployment_id/logs',
    {
      operationId: 'appendDeploymentLog',
      summary: 'Append lines to a deployment\'s log',
      description:
        'A deployer sends its output: 1–1,000 lines, at most 1 MiB a request and 8 KiB a line. The lines get the next numbers of the deployment\'s log, one contiguous range per request, whatever the number of writers. Any value of a secret configuration of the project (8 characters or longer) in a line is stored as `***`. Taken until 10 minutes after the deployment finished (then 409 `deployment_finished`); a log that reached LOG_MAX_LINES or LOG_MAX_BYTES answers 409 `log_full` and ends with one `system` line saying it was cut.',
      tags,
      success: { status: 202, description: 'The numbers the lines got.', schema: AppendLogResult },
      errors: ['project_not_active', 'deployment_finished', 'log_full', 'conflict'],
    },
    authenticate,
    requireScope('write'),
    validate({ params: DeploymentParams, body: AppendLogBody, maxBodyBytes: LOG_LIMITS.bytesPerRequest }),
    idempotent({ newResourceId: () => newId('logBatch') }),
    async (ctx: ApiContext<{ params: DeploymentParams; body: AppendLogBody }>) => {
      const { project_id, deployment_id } = ctx.input.params;
      ctx.status = 202;
      ctx.body = await deploymentLogs.append(ctx.state.principal, project_id, deployment_id, ctx.input.body, ctx.state.resourceId);
    },
  );

  api.get(
    '/projects/:project_id/deployments/:deployment_id/logs',
    {
      operationId: 'readDeploymentLog',
      summary: 'Read or follow a deployment\'s log',
      description: `A page of lines after \`after\`, in order; \`complete\` once the deployment has finished and the page reaches the last line stored. ${FOLLOW_EVENTS}`,
      tags,
      success: { status: 200, description: 'A page of the log, or (with `Accept: text/event-stream`) the log followed live.', schema: LogPage, eventStream: FOLLOW_EVENTS },
    },
    authenticate,
    requireScope('read'),
    validate({ params: DeploymentParams, query: ReadLogQuery }),
    async (ctx: ApiContext<{ params: DeploymentParams; query: ReadLogQuery }>) => {
      const { project_id, deployment_id } = ctx.input.params;
      const { after, limit } = ctx.input.query;
      if (wantsEventStream(ctx)) {
        const from = lastEventId(ctx) ?? after;
        const deployment = await deploymentLogs.deployment(ctx.state.principal, project_id, deployment_id);
        await openEventStream(ctx, streams, (stream) => logFollowers.follow(deployment, from, sseSink(stream)));
        return;
      }
      const page = await deploymentLogs.read(ctx.state.principal, project_id, deployment_id, after, limit);
      ctx.body = { data: page.lines.map(presentLogLine), next_after: page.nextAfter, complete: page.complete } satisfies LogPage;
    },
  );
}
