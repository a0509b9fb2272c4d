import { APPEND_AFTER_FINISH_MS, maskSecrets, secretPattern } from '../domain/deploymentLogs.ts';
import { authorize } from '../domain/policy.ts';
import type { Principal } from '../domain/principal.ts';
import { conflict, deploymentFinished, logFull, projectNotActive } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { chunkId, type LogChunkDoc, type ReadLine, type StoredLine } from '../repositories/deploymentLogs.ts';
import type { DeploymentDoc } from '../repositories/deployments.ts';
import type { Repositories } from '../repositories/index.ts';
import type { AppendLogBody, AppendLogResult } from '../schemas/deploymentLogs.ts';
import { ProjectRecords, type ProjectPlace } from './accountRecords.ts';
import type { ConfigurationService } from './configurations.ts';
import type { ProjectService } from './projects.ts';
import { Service } from './service.ts';
export type { LogChunkDoc, ReadLine } from '../repositories/deploymentLogs.ts';

/** How many times an append tries the range after the newest chunk before it answers 409 `conflict`. */
const MAX_CLAIM_ATTEMPTS = 200;

export interface LogLimits {
  /** LOG_MAX_LINES */
  maxLines: number;
  /** LOG_MAX_BYTES */
  maxBytes: number;
  /** LOG_RETENTION_DAYS */
  retentionDays: number;
}

export interface DeploymentLogServiceDeps extends Pick<Repositories, 'deploymentLogs' | 'deployments'> {
  projects: ProjectService;
  /** The project's secret values, masked in every line before it is written. */
  configurations: ConfigurationService;
  clock: Clock;
  limits: LogLimits;
}

export interface LogRead {
  lines: ReadLine[];
  nextAfter: number;
  complete: boolean;
}

/** The lines of `chunks` after `after`, in order, at most `limit`. */
export function linesOf(chunks: LogChunkDoc[], after: number, limit = Infinity): ReadLine[] {
  const lines: ReadLine[] = [];
  for (const chunk of chunks) {
    for (let i = Math.max(0, after + 1 - chunk.first_seq); i < chunk.lines.length && lines.length < limit; i++) lines.push({ seq: chunk.first_seq + i, ...chunk.lines[i]! });
  }
  return lines;
}

/** A deployment has finished once it has a `finished_at` (succeeded, failed, canceled, and superseded after). */
export const hasFinished = (deployment: Pick<DeploymentDoc, 'finished_at'>) => deployment.finished_at !== null;

/**
 * Deployment logs (docs/product.md §10): appends numbered densely per deployment by claimed ranges
 * (`DeploymentLogRepository`), secret values masked before the write, limits and the 10-minute window
 * after the finish; pages by seq.
 */
export class DeploymentLogService extends Service<DeploymentLogServiceDeps> {
  readonly #deployments = new ProjectRecords(this.deps.deployments, 'deployment', this.deps.projects);
  readonly #appended = new Set<(deploymentId: string) => void>();
  /**
   * Appends of one deployment on this instance take their turn (they would only race each other for
   * the same range), and while some are waiting the newest chunk this instance wrote is known: the next
   * append claims right after it without reading the log again. Another instance's write since makes
   * that claim fail (its chunk starts at the same seq), and the append reads the newest chunk as usual.
   */
  readonly #turns = new Map<string, { tail: Promise<void>; waiting: number; newest: Pick<LogChunkDoc, 'last_seq' | 'total_bytes' | 'cut'> | undefined }>();

  /** Tells `listener` of every append made on this instance (followers here need not wait for their next poll). */
  onAppended(listener: (deploymentId: string) => void): () => void {
    this.#appended.add(listener);
    return () => this.#appended.delete(listener);
  }

  /**
   * Appends the lines as one contiguous range (202 `{first_seq, last_seq}`). `batchId` is the id the
   * request's Idempotency-Key reserved: a range already written under it is the answer, so a retried
   * request adds nothing. Refused: archived project (409 `project_not_active`), more than 10 minutes
   * after the deployment finished (409 `deployment_finished`), a log at its limits or past its
   * retention (409 `log_full`, after which one `system` line says the log was cut).
   */
  async append(principal: Principal, projectId: string, deploymentId: string, input: AppendLogBody, batchId?: string): Promise<AppendLogResult> {
    authorize(principal, 'update', 'deployment');
    const project = await this.deps.projects.get(principal, projectId);
    if (project.status === 'archived') throw projectNotActive('The project is archived; its deployments take no log lines.');
    const deployment = await this.#deployments.find(project, deploymentId);
    if (batchId) {
      const done = await this.deps.deploymentLogs.findBatch(deployment._id, batchId);
      if (done) return { first_seq: done.first_seq, last_seq: done.last_seq };
    }
    const now = this.deps.clock.date();
    if (deployment.finished_at && now.getTime() - deployment.finished_at.getTime() > APPEND_AFTER_FINISH_MS)
      throw deploymentFinished('The deployment finished more than 10 minutes ago; its log takes no more lines.');
    if (now.getTime() >= this.#retentionEnd(deployment)) throw logFull(`The log's retention of ${this.deps.limits.retentionDays} days has passed; it takes no more lines.`);
    const pattern = secretPattern(await this.deps.configurations.secretValuesOf(project));
    const lines: StoredLine[] = input.lines.map((line) => ({
      s: line.stream ?? 'stdout',
      t: maskSecrets(line.text, pattern),
      ts: line.timestamp ? new Date(line.timestamp) : now,
    }));
    return await this.#claimRange(project, deployment, lines, batchId ?? null, now);
  }

  /** Claims the range right after the newest chunk, with the lines in it, in this instance's turn for the deployment. */
  async #claimRange(project: ProjectPlace, deployment: DeploymentDoc, lines: StoredLine[], batchId: string | null, now: Date): Promise<AppendLogResult> {
    let turn = this.#turns.get(deployment._id);
    if (!turn) {
      turn = { tail: Promise.resolve(), waiting: 0, newest: undefined };
      this.#turns.set(deployment._id, turn);
    }
    const mine = turn;
    mine.waiting += 1;
    const previous = mine.tail;
    let done!: () => void;
    mine.tail = new Promise<void>((resolve) => (done = resolve));
    try {
      await previous;
      return await this.#claimAfterNewest(project, deployment, lines, batchId, now, mine);
    } finally {
      done();
      mine.waiting -= 1;
      if (mine.waiting === 0) this.#turns.delete(deployment._id);
    }
  }

  /**
   * Claims the range right after the newest chunk (the one this instance wrote last, when it knows it).
   * A writer that loses the race (another chunk starts there now) reads the newest chunk and tries after it.
   */
  async #claimAfterNewest(
    project: ProjectPlace,
    deployment: DeploymentDoc,
    lines: StoredLine[],
    batchId: string | null,
    now: Date,
    turn: { newest: Pick<LogChunkDoc, 'last_seq' | 'total_bytes' | 'cut'> | undefined },
  ): Promise<AppendLogResult> {
    const { maxLines, maxBytes } = this.deps.limits;
    const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line.t, 'utf8'), 0);
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const last = turn.newest ?? (await this.deps.deploymentLogs.last(deployment._id));
      turn.newest = undefined;
      if (last?.cut) throw logFull(`The log reached its limit of ${maxLines} lines or ${maxBytes} bytes; it was cut and takes no more lines.`);
      const first = (last?.last_seq ?? 0) + 1;
      const totalBytes = (last?.total_bytes ?? 0) + bytes;
      const fits = first + lines.length - 1 <= maxLines && totalBytes <= maxBytes;
      const chunk = fits
        ? this.#chunk(project, deployment, first, lines, totalBytes, batchId, now)
        : this.#chunk(project, deployment, first, [cutLine(maxLines, maxBytes, now)], last?.total_bytes ?? 0, null, now, true);
      if (await this.deps.deploymentLogs.claim(chunk)) {
        turn.newest = { last_seq: chunk.last_seq, total_bytes: chunk.total_bytes, cut: chunk.cut };
        for (const listener of this.#appended) listener(deployment._id);
        if (fits) return { first_seq: chunk.first_seq, last_seq: chunk.last_seq };
      }
      // Lost the race, or cut the log: the next round reads the newest chunk again.
    }
    throw conflict('The log is being written by many writers at once; retry.');
  }

  #chunk(project: ProjectPlace, deployment: DeploymentDoc, first: number, lines: StoredLine[], totalBytes: number, batchId: string | null, now: Date, cut = false): LogChunkDoc {
    return {
      _id: chunkId(deployment._id, first),
      account_id: project.account_id,
      project_id: project._id,
      deployment_id: deployment._id,
      first_seq: first,
      last_seq: first + lines.length - 1,
      total_bytes: totalBytes,
      batch_id: batchId,
      cut,
      lines,
      deployment_created_at: deployment.created_at,
      created_at: now,
    };
  }

  #retentionEnd(deployment: DeploymentDoc): number {
    return deployment.created_at.getTime() + this.deps.limits.retentionDays * 86_400_000;
  }

  /**
   * A page of the log: up to `limit` lines after `after`. `complete` when the deployment has finished
   * (read before the lines, so every line stored by the finish is in what follows) and no line is
   * stored past this page.
   */
  async read(principal: Principal, projectId: string, deploymentId: string, after: number, limit: number): Promise<LogRead> {
    const deployment = await this.deployment(principal, projectId, deploymentId);
    const finished = hasFinished(deployment);
    const lines = linesOf(await this.deps.deploymentLogs.after(deployment._id, after, limit + 1), after, limit + 1);
    const page = lines.slice(0, limit);
    return { lines: page, nextAfter: page.at(-1)?.seq ?? after, complete: finished && lines.length <= limit };
  }

  /**
   * A page of the log for a person reading it (the dashboard): after `after`, or, without it, the last
   * `limit` lines; with the highest seq stored.
   */
  async window(principal: Principal, projectId: string, deploymentId: string, after: number | undefined, limit: number): Promise<LogRead & { lastSeq: number }> {
    const deployment = await this.deployment(principal, projectId, deploymentId);
    const lastSeq = (await this.deps.deploymentLogs.last(deployment._id))?.last_seq ?? 0;
    const from = after ?? Math.max(0, lastSeq - limit);
    const lines = linesOf(await this.deps.deploymentLogs.after(deployment._id, from, limit), from, limit);
    return { lines, nextAfter: lines.at(-1)?.seq ?? from, complete: hasFinished(deployment) && (lines.at(-1)?.seq ?? from) >= lastSeq, lastSeq };
  }

  /** The deployment a reader may read (404 otherwise): what a follower follows. */
  async deployment(principal: Principal, projectId: string, deploymentId: string): Promise<DeploymentDoc> {
    authorize(principal, 'read', 'deployment');
    return await this.#deployments.get(principal, projectId, deploymentId);
  }

  /** The project whose deployment changes a reader may follow (404 otherwise). */
  async projectToFollow(principal: Principal, projectId: string): Promise<ProjectPlace> {
    authorize(principal, 'list', 'deployment');
    return await this.deps.projects.get(principal, projectId);
  }

  /** Removes the logs of deployments created more than LOG_RETENTION_DAYS ago, in batches. */
  async sweep(now = this.deps.clock.date()): Promise<number> {
    return await this.deps.deploymentLogs.sweep(new Date(now.getTime() - this.deps.limits.retentionDays * 86_400_000));
  }
}

function cutLine(maxLines: number, maxBytes: number, now: Date): StoredLine {
  return { s: 'system', t: `The log was cut: it reached its limit of ${maxLines} lines or ${maxBytes} bytes, and later lines were not kept.`, ts: now };
}
