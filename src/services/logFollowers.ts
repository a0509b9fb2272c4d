import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../logger.ts';
import type { LogChunkDoc } from '../repositories/deploymentLogs.ts';
import type { DeploymentDoc } from '../repositories/deployments.ts';
import type { Repositories } from '../repositories/index.ts';
import { hasFinished, linesOf, type DeploymentLogService, type ReadLine } from './deploymentLogs.ts';
import { Service } from './service.ts';

/** Lines a poller or a follower catching up reads per query. */
const PAGE_LINES = 1000;
/** Pages one poll reads at most (a burst beyond is read at the next poll). */
const PAGES_PER_POLL = 20;
/** Chunks a poll's first query asks for: one a request appended since the last poll, usually fewer. */
const POLL_CHUNKS = 32;
/** Polls a follower lets wait before it keeps only the newest (see Follower.receive). */
const MAX_QUEUED_POLLS = 20;

/** What a follower is told, in order; a sink turns it into Server-Sent Events. */
export type FollowEvent = { type: 'line'; line: ReadLine } | { type: 'status'; deployment: DeploymentDoc } | { type: 'end'; deployment: DeploymentDoc; lastSeq: number };

/** Where a follower's events go (an event stream). */
export interface FollowSink {
  /** False when the reader's buffer is full: the follower waits for `drained` before writing more. */
  send(event: FollowEvent): boolean;
  /** True once the reader took what was written; false when it did not within the stall limit, or the stream closed. */
  drained(): Promise<boolean>;
  /** Ends the stream (after `end`, or a reader too slow: it resumes with Last-Event-ID). */
  close(reason: 'end' | 'slow' | 'error'): void;
  readonly closed: boolean;
  /** Calls `listener` once when the stream closes, for whatever reason (the reader left, too). */
  onClose(listener: () => void): void;
}

/** An open response that ends when told (at shutdown). */
export interface OpenStream {
  close(): void;
  onClose(listener: () => void): void;
}

export interface LogFollowerDeps extends Pick<Repositories, 'deploymentLogs' | 'deployments'> {
  logs: DeploymentLogService;
  clock: Clock;
  logger: Logger;
  /** LOG_POLL_INTERVAL_MS */
  pollIntervalMs: number;
}

/**
 * Live log delivery on one instance (docs/product.md §10, "Following"). Lines reach followers by
 * polling the index, never by a change stream (FerretDB 1.24 has none): one poller per deployment that
 * someone follows on this instance, shared by all of its followers there, reads the deployment (its
 * status) and then the chunks after the last seq it saw, every LOG_POLL_INTERVAL_MS, and hands the
 * same chunk objects to each follower. So database commands grow with instances × followed
 * deployments, not with followers. An append made on this instance polls at once.
 *
 * A follower that starts from an older seq (or fell behind) reads its own pages until it has caught
 * up; it never skips a seq: a chunk that starts past what it sent makes it read the gap first.
 */
export class LogFollowers extends Service<LogFollowerDeps> {
  readonly #pollers = new Map<string, DeploymentPoller>();
  #unlisten: (() => void) | undefined;

  /**
   * Follows the deployment's log after `after` until the deployment has finished and every line stored
   * by then was sent (`end`), or the sink closes. Resolves when the follower stops.
   */
  async follow(deployment: DeploymentDoc, after: number, sink: FollowSink): Promise<void> {
    this.#unlisten ??= this.deps.logs.onAppended((id) => this.#pollers.get(id)?.nudge());
    let poller = this.#pollers.get(deployment._id);
    if (!poller) {
      poller = new DeploymentPoller(deployment, this.deps, () => this.#pollers.delete(deployment._id));
      this.#pollers.set(deployment._id, poller);
    }
    const follower = new Follower(deployment, after, sink, this.deps);
    poller.add(follower);
    try {
      await follower.run();
    } finally {
      poller.remove(follower);
    }
  }

  /** Deployments followed on this instance now (for tests and metrics). */
  get polled(): number {
    return this.#pollers.size;
  }

  readonly #open = new Set<OpenStream>();

  /** Keeps `stream` among this instance's open streams until it closes: `close` ends them all (shutdown). */
  track(stream: OpenStream): void {
    this.#open.add(stream);
    stream.onClose(() => this.#open.delete(stream));
  }

  /** Streams open on this instance now. */
  get open(): number {
    return this.#open.size;
  }

  close(): void {
    for (const stream of this.#open) stream.close();
    this.#open.clear();
    this.#unlisten?.();
    for (const poller of this.#pollers.values()) poller.stop();
    this.#pollers.clear();
  }
}

/** What a poll saw: the deployment (read first), then the chunks after the poller's last seq. */
interface Poll {
  deployment: DeploymentDoc;
  chunks: LogChunkDoc[];
  /** The highest seq stored when the deployment was read, or later. */
  head: number;
}

class DeploymentPoller {
  readonly #id: string;
  readonly #deps: LogFollowerDeps;
  readonly #onIdle: () => void;
  readonly #followers = new Set<Follower>();
  #head = -1;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(deployment: DeploymentDoc, deps: LogFollowerDeps, onIdle: () => void) {
    this.#id = deployment._id;
    this.#deps = deps;
    this.#onIdle = onIdle;
  }

  add(follower: Follower): void {
    this.#followers.add(follower);
    this.#schedule();
  }

  remove(follower: Follower): void {
    this.#followers.delete(follower);
    if (this.#followers.size === 0) this.stop();
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#onIdle();
  }

  /** A line was appended on this instance: poll now. */
  nudge(): void {
    if (this.#stopped) return;
    if (this.#polling) this.#again = true;
    else {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#poll();
    }
  }

  #schedule(): void {
    if (this.#stopped || this.#timer || this.#polling) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#poll();
    }, this.#deps.pollIntervalMs);
    this.#timer.unref();
  }

  #poll(): void {
    this.#polling = this.#read()
      .then((poll) => {
        for (const follower of this.#followers) follower.receive(poll);
      })
      .catch((err: unknown) => this.#deps.logger.warn({ err, deployment_id: this.#id }, 'log poll failed'))
      .finally(() => {
        this.#polling = undefined;
        if (this.#again) {
          this.#again = false;
          this.nudge();
        } else this.#schedule();
      });
  }

  /** Null when the deployment is gone (its project was deleted). */
  async #read(): Promise<Poll | null> {
    // The deployment first: every line stored before it was read is in the chunks read after.
    const deployment = await this.#deps.deployments.collection.findOne({ _id: this.#id });
    if (!deployment) return null;
    if (this.#head < 0) this.#head = (await this.#deps.deploymentLogs.last(this.#id))?.last_seq ?? 0;
    const chunks: LogChunkDoc[] = [];
    for (let page = 0; page < PAGES_PER_POLL; page++) {
      const found = await this.#deps.deploymentLogs.after(this.#id, this.#head, PAGE_LINES, POLL_CHUNKS);
      chunks.push(...found);
      if (found.length === 0) break;
      this.#head = found.at(-1)!.last_seq;
      if (linesOf(found, -1).length < PAGE_LINES) break;
    }
    return { deployment, chunks, head: this.#head };
  }
}

class Follower {
  #cursor: number;
  readonly #deploymentId: string;
  readonly #sink: FollowSink;
  readonly #deps: LogFollowerDeps;
  #status: string;
  readonly #polls: Poll[] = [];
  #wake: (() => void) | undefined;

  constructor(deployment: DeploymentDoc, after: number, sink: FollowSink, deps: LogFollowerDeps) {
    this.#deploymentId = deployment._id;
    this.#cursor = after;
    this.#sink = sink;
    this.#deps = deps;
    this.#status = deployment.status;
  }

  /**
   * A poll's news. The chunks are shared with the other followers; a follower that lets more than
   * MAX_QUEUED_POLLS wait keeps only the newest poll without its chunks and reads the gap itself
   * (when its reader takes them), so what it holds stays bounded. Null: the deployment is gone.
   */
  receive(poll: Poll | null): void {
    if (!poll) this.#sink.close('error');
    else {
      this.#polls.push(poll);
      if (this.#polls.length > MAX_QUEUED_POLLS) this.#polls.splice(0, this.#polls.length, { ...poll, chunks: [] });
    }
    this.#wake?.();
  }

  async run(): Promise<void> {
    this.#sink.onClose(() => this.#wake?.());
    try {
      await this.#catchUp(Infinity);
      while (!this.#sink.closed) {
        const poll = this.#polls.shift();
        if (!poll) {
          await new Promise<void>((resolve) => (this.#wake = resolve));
          this.#wake = undefined;
          continue;
        }
        if (!(await this.#deliver(poll))) return;
      }
    } catch (err) {
      this.#deps.logger.warn({ err, deployment_id: this.#deploymentId }, 'log follower failed');
      this.#sink.close('error');
    }
  }

  /** Sends what the poll brought; false once the stream ended. */
  async #deliver(poll: Poll): Promise<boolean> {
    for (const chunk of poll.chunks) {
      if (chunk.last_seq <= this.#cursor) continue;
      if (chunk.first_seq > this.#cursor + 1 && !(await this.#catchUp(chunk.first_seq - 1))) return false;
      if (!(await this.#send(linesOf([chunk], this.#cursor)))) return false;
    }
    if (poll.deployment.status !== this.#status) {
      this.#status = poll.deployment.status;
      if (!(await this.#emit({ type: 'status', deployment: poll.deployment }))) return false;
    }
    if (this.#cursor < poll.head && !(await this.#catchUp(poll.head))) return false;
    if (hasFinished(poll.deployment) && this.#polls.length === 0) {
      await this.#emit({ type: 'end', deployment: poll.deployment, lastSeq: this.#cursor });
      this.#sink.close('end');
      return false;
    }
    return true;
  }

  /** Reads and sends the lines after the cursor, up to `upTo` or the end of what is stored; false once the stream ended. */
  async #catchUp(upTo: number): Promise<boolean> {
    while (this.#cursor < upTo && !this.#sink.closed) {
      const chunks = await this.#deps.deploymentLogs.after(this.#deploymentId, this.#cursor, PAGE_LINES);
      const lines = linesOf(chunks, this.#cursor, PAGE_LINES).filter((line) => line.seq <= upTo);
      if (lines.length === 0) return !this.#sink.closed;
      if (!(await this.#send(lines))) return false;
    }
    return !this.#sink.closed;
  }

  async #send(lines: ReadLine[]): Promise<boolean> {
    for (const line of lines) {
      if (line.seq !== this.#cursor + 1) continue;
      if (!(await this.#emit({ type: 'line', line }))) return false;
      this.#cursor = line.seq;
    }
    return true;
  }

  /** Writes one event, waiting for a full buffer to drain; false once the stream ended (closed, or the reader stalled). */
  async #emit(event: FollowEvent): Promise<boolean> {
    if (this.#sink.closed) return false;
    if (this.#sink.send(event)) return true;
    if (await this.#sink.drained()) return true;
    this.#sink.close('slow');
    return false;
  }
}

/** How long a stream's place lasts unless its holder renews it (a holder that died frees it this long after). */
const PLACE_TTL_MS = 60_000;

/** A place held by one open stream. */
export interface StreamPlace {
  id: string;
  expiresAt: Date;
}

export interface StreamPlaceDeps extends Pick<Repositories, 'logStreamSlots'> {
  clock: Clock;
  /** LOG_STREAMS_PER_CREDENTIAL */
  perCredential: number;
}

/** Places renewed by one command at most (an instance holding more sends several). */
const RENEW_BATCH = 1000;

/**
 * The event streams one credential holds open, across every instance (docs/product.md §10): places
 * `${credential}#0`..`#${n-1}`, each a lease claimed by a unique insert (src/db/claims.ts), so of any
 * number of streams opened at once on any instances at most n hold one. The instance renews every
 * place its open streams hold together, in one command every `renewEveryMs` (not one per stream), so
 * what holding places costs the database grows with instances, not with streams; a stream whose
 * instance died gives its place back when its lease ends.
 */
export class StreamPlaces extends Service<StreamPlaceDeps> {
  /** Places held by this instance's open streams, and what to do when one turns out lost. */
  readonly #held = new Map<StreamPlace, () => void>();
  #timer: NodeJS.Timeout | undefined;
  #renewing: Promise<void> | undefined;

  /** The place this stream now holds, or null when the credential holds all of them (429). */
  async claim(credential: string): Promise<StreamPlace | null> {
    const n = this.deps.perCredential;
    // Starting at a random place spreads concurrent openers over the free places.
    const start = Math.floor(Math.random() * n);
    for (let i = 0; i < n; i++) {
      const id = `${credential}#${(start + i) % n}`;
      const now = this.deps.clock.date();
      if (await this.deps.logStreamSlots.claimOrTakeOver(id, PLACE_TTL_MS, now)) return { id, expiresAt: new Date(now.getTime() + PLACE_TTL_MS) };
    }
    return null;
  }

  readonly renewEveryMs = PLACE_TTL_MS / 3;

  /**
   * Keeps `place` renewed with the others this instance holds until `release`; `lost` is called (once)
   * if a renewal finds it is no longer this stream's (it ended and was taken over).
   */
  hold(place: StreamPlace, lost: () => void): void {
    this.#held.set(place, lost);
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.renewHeld().catch(() => undefined), this.renewEveryMs);
      this.#timer.unref();
    }
  }

  /** Places held on this instance now. */
  get held(): number {
    return this.#held.size;
  }

  /** Renews every place held on this instance: one database command per RENEW_BATCH places (while none was lost). */
  async renewHeld(): Promise<void> {
    await this.#renewing;
    const renewing = this.#renewAll();
    this.#renewing = renewing;
    try {
      await renewing;
    } finally {
      if (this.#renewing === renewing) this.#renewing = undefined;
    }
  }

  async #renewAll(): Promise<void> {
    const places = [...this.#held.keys()];
    for (let i = 0; i < places.length; i += RENEW_BATCH) {
      const batch = places.slice(i, i + RENEW_BATCH);
      const to = new Date(this.deps.clock.now() + PLACE_TTL_MS);
      const renewed = await this.deps.logStreamSlots.renewAll(
        batch.map((place) => ({ id: place.id, from: place.expiresAt })),
        to,
      );
      for (const place of batch) {
        if (renewed.has(place.id)) place.expiresAt = to;
        else if (this.#held.has(place)) {
          const lost = this.#held.get(place)!;
          this.#held.delete(place);
          lost();
        }
      }
    }
  }

  /** Gives the place back (after a renewal in flight, so that the end it is released with is its last). */
  async release(place: StreamPlace): Promise<void> {
    this.#held.delete(place);
    if (this.#held.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
    await this.#renewing?.catch(() => undefined);
    await this.deps.logStreamSlots.release(place.id, place.expiresAt);
  }
}

/** Changes committed late (another instance's write in flight) are looked for this far back. */
const FEED_OVERLAP_MS = 5000;
/** Deployments a feed poll or a catch-up reads at most. */
const FEED_PAGE = 500;

/** Where a project feed's events go: `deployment` per change (false: the buffer is full). */
export interface FeedSink extends Omit<FollowSink, 'send'> {
  send(deployment: DeploymentDoc): boolean;
}

export interface DeploymentFeedDeps extends Pick<Repositories, 'deployments'> {
  logger: Logger;
  /** LOG_POLL_INTERVAL_MS */
  pollIntervalMs: number;
}

/**
 * A project's deployment changes, live (docs/product.md §10, "Deployment changes"), on one instance:
 * one poller per project followed here, shared by its followers, reads the deployments updated since
 * the newest change it saw (less FEED_OVERLAP_MS, for writes committed late) on the
 * `project_id, updated_at` index. Each follower sends a change once (by deployment and `updated_at`).
 */
export class DeploymentFeeds extends Service<DeploymentFeedDeps> {
  readonly #pollers = new Map<string, FeedPoller>();

  /** Follows the project's changes after `since` (ms of `updated_at`) until the sink closes. */
  async follow(project: { _id: string; account_id: string }, since: number, sink: FeedSink): Promise<void> {
    const sent = new Map<string, number>();
    let cursor = since;
    let wake: (() => void) | undefined;
    const queue: DeploymentDoc[][] = [];
    const deliver = async (docs: DeploymentDoc[]): Promise<boolean> => {
      for (const doc of docs) {
        const at = doc.updated_at.getTime();
        if (at <= since || sent.get(doc._id) === at) continue;
        sent.set(doc._id, at);
        cursor = Math.max(cursor, at);
        if (!sink.send(doc) && !(await sink.drained())) {
          sink.close('slow');
          return false;
        }
      }
      for (const [id, at] of sent) if (at < cursor - 2 * FEED_OVERLAP_MS) sent.delete(id);
      return !sink.closed;
    };
    let poller = this.#pollers.get(project._id);
    if (!poller) {
      poller = new FeedPoller(project, this.deps, () => this.#pollers.delete(project._id));
      this.#pollers.set(project._id, poller);
    }
    const listener = (docs: DeploymentDoc[]) => {
      queue.push(docs);
      if (queue.length > MAX_QUEUED_POLLS) queue.splice(0, queue.length - MAX_QUEUED_POLLS);
      wake?.();
    };
    poller.add(listener);
    sink.onClose(() => wake?.());
    try {
      if (!(await deliver(await this.deps.deployments.changedSince(project.account_id, project._id, new Date(since), FEED_PAGE)))) return;
      while (!sink.closed) {
        const docs = queue.shift();
        if (!docs) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          continue;
        }
        if (!(await deliver(docs))) return;
      }
    } catch (err) {
      this.deps.logger.warn({ err, project_id: project._id }, 'deployment feed failed');
      sink.close('error');
    } finally {
      poller.remove(listener);
    }
  }
}

class FeedPoller {
  readonly #project: { _id: string; account_id: string };
  readonly #deps: DeploymentFeedDeps;
  readonly #onIdle: () => void;
  readonly #listeners = new Set<(docs: DeploymentDoc[]) => void>();
  #seen = Date.now();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(project: { _id: string; account_id: string }, deps: DeploymentFeedDeps, onIdle: () => void) {
    this.#project = project;
    this.#deps = deps;
    this.#onIdle = onIdle;
  }

  add(listener: (docs: DeploymentDoc[]) => void): void {
    this.#listeners.add(listener);
    this.#schedule();
  }

  remove(listener: (docs: DeploymentDoc[]) => void): void {
    this.#listeners.delete(listener);
    if (this.#listeners.size === 0 && !this.#stopped) {
      this.#stopped = true;
      clearTimeout(this.#timer);
      this.#onIdle();
    }
  }

  #schedule(): void {
    if (this.#stopped || this.#timer) return;
    this.#timer = setTimeout(() => {
      void this.#poll().finally(() => {
        this.#timer = undefined;
        this.#schedule();
      });
    }, this.#deps.pollIntervalMs);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    try {
      const docs = await this.#deps.deployments.changedSince(this.#project.account_id, this.#project._id, new Date(this.#seen - FEED_OVERLAP_MS), FEED_PAGE);
      for (const doc of docs) this.#seen = Math.max(this.#seen, doc.updated_at.getTime());
      if (docs.length) for (const listener of this.#listeners) listener(docs);
    } catch (err) {
      this.#deps.logger.warn({ err, project_id: this.#project._id }, 'deployment feed poll failed');
    }
  }
}
