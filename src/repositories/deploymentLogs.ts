import type { Collection, Db } from 'mongodb';
import { claimOnce } from '../db/claims.ts';
import { deleteInBatches } from '../db/deleteInBatches.ts';

import type { LogStream } from '../domain/deploymentLogs.ts';

/** One stored line: short field names, as a chunk holds up to 1,000 of them. */
export interface StoredLine {
  /** stream */
  s: LogStream;
  /** text, masked (docs/product.md §10) */
  t: string;
  /** timestamp */
  ts: Date;
}

/** A line as read: its seq and what was stored. */
export interface ReadLine extends StoredLine {
  seq: number;
}

/**
 * The lines of one append, numbered `first_seq`..`last_seq` of their deployment's log
 * (docs/product.md §10, "Numbering"). The `_id` is the deployment and the first seq, so inserting a
 * chunk is the claim of its range (src/db/claims.ts): of writers that saw the same last chunk, exactly
 * one inserts the chunk that starts after it; the others read the new last chunk and try after it.
 * Every chunk starts right after the end of another (or at 1), and only one chunk can start at a
 * given seq, so the chunks of a deployment form one chain 1..N: no gap, no overlap. The lines travel in
 * the claim itself, so a writer that dies leaves either its whole range or nothing.
 */
export interface LogChunkDoc {
  /** `${deployment_id}:${first_seq, 12 digits}` */
  _id: string;
  account_id: string;
  project_id: string;
  deployment_id: string;
  first_seq: number;
  last_seq: number;
  /** Bytes of text (UTF-8) of the log up to and including this chunk. */
  total_bytes: number;
  /** The Idempotency-Key reservation of the request that wrote it (`logb_…`), or null. */
  batch_id: string | null;
  /** The system line that says the log was cut: nothing follows it. */
  cut: boolean;
  lines: StoredLine[];
  /** When the deployment was created: the log is kept LOG_RETENTION_DAYS from then, whole. */
  deployment_created_at: Date;
  created_at: Date;
}

/** Where a chunk starts, as its `_id` says it: sorted as text, the ids of one deployment sort by seq. */
export const chunkId = (deploymentId: string, firstSeq: number) => `${deploymentId}:${String(firstSeq).padStart(12, '0')}`;

/** Chunks the first query of `after` asks for (two hold a page of 1,000 when chunks hold 1,000 lines). */
const FIRST_CHUNKS = 2;

export class DeploymentLogRepository {
  readonly collection: Collection<LogChunkDoc>;
  constructor(db: Db) {
    this.collection = db.collection<LogChunkDoc>('deployment_logs');
  }

  async ensureIndexes(): Promise<void> {
    // The last chunk (appends), the chunks after a seq (reads, follows): one index, whatever the seq.
    await this.collection.createIndex({ deployment_id: 1, last_seq: 1 }, { name: 'deployment_last_seq' });
    // An append retried under its Idempotency-Key finds what an earlier run wrote.
    await this.collection.createIndex({ deployment_id: 1, batch_id: 1 }, { name: 'deployment_batch' });
    await this.collection.createIndex({ deployment_created_at: 1 }, { name: 'deployment_created_at' });
    await this.collection.createIndex({ account_id: 1, project_id: 1 }, { name: 'account_project' });
  }

  /** True when this chunk now holds its range; false when another chunk starts at the same seq. */
  async claim(doc: LogChunkDoc): Promise<boolean> {
    return await claimOnce(this.collection, doc);
  }

  /** The deployment's chunk with the highest seqs, or null for an empty log. */
  async last(deploymentId: string): Promise<LogChunkDoc | null> {
    return await this.collection.findOne({ deployment_id: String(deploymentId) }, { sort: { last_seq: -1 }, projection: { lines: 0 } });
  }

  async findBatch(deploymentId: string, batchId: string): Promise<LogChunkDoc | null> {
    return await this.collection.findOne({ deployment_id: String(deploymentId), batch_id: String(batchId) }, { projection: { lines: 0 } });
  }

  /**
   * The chunks holding seqs after `after`, in order, until they hold `lines` lines past it (at most
   * `lines` chunks: each holds one line or more).
   *
   * A query asks for no more chunks than it needs: FerretDB 1.24 reads every document up to a query's
   * limit before it answers, whatever the batch size, and a chunk may hold 1 line or 1,000 (asking 1,001
   * chunks of 1,000 lines for a page of 1,000 read 50 MB, seconds). So the first query asks for
   * FIRST_CHUNKS; the next ones, after the last chunk read, for as many as the lines still wanted need at
   * the size of that chunk (one more query when the chunks are alike). A poll for what was appended since
   * the last one asks for more at first (`firstChunks`): it needs every chunk there is, each of a request.
   */
  async after(deploymentId: string, after: number, lines: number, firstChunks = FIRST_CHUNKS): Promise<LogChunkDoc[]> {
    const chunks: LogChunkDoc[] = [];
    let count = 0;
    let from = after;
    for (let limit = Math.min(firstChunks, lines); ; ) {
      const found = await this.collection.find({ deployment_id: String(deploymentId), last_seq: { $gt: from } }, { sort: { last_seq: 1 }, limit }).toArray();
      for (const chunk of found) {
        chunks.push(chunk);
        count += chunk.last_seq - Math.max(after, chunk.first_seq - 1);
        if (count >= lines) return chunks;
      }
      if (found.length < limit) return chunks;
      const last = found.at(-1)!;
      from = last.last_seq;
      // Chunks of the size of the last one (a writer's batches are alike), one more for a smaller one;
      // never more chunks than lines are left.
      limit = Math.min(lines - count, Math.ceil((lines - count) / (last.last_seq - last.first_seq + 1)) + 1);
    }
  }

  /** Logs of deployments created before `before` (LOG_RETENTION_DAYS), in batches. */
  async sweep(before: Date): Promise<number> {
    return await deleteInBatches(this.collection, { deployment_created_at: { $lt: before } }, { fixedFields: true });
  }

  async deleteByProject(accountId: string, projectId: string): Promise<number> {
    return await deleteInBatches(this.collection, { account_id: String(accountId), project_id: String(projectId) }, { fixedFields: true });
  }
}
