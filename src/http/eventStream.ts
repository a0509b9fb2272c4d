import { PassThrough } from 'node:stream';
import { AppError } from '../errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { LogFollowers, StreamPlaces } from '../services/logFollowers.ts';
import type { ApiContext } from './apiContext.ts';
import { credentialBucket } from './authenticate.ts';

/** A stream's own buffer: past it `send` answers false and the writer waits for the reader (backpressure). */
const BUFFER_BYTES = 64 * 1024;

/** What the stream checks and keeps (docs/product.md §10). */
export interface EventStreamDeps {
  places: StreamPlaces;
  followers: LogFollowers;
  /** LOG_HEARTBEAT_MS: a comment when nothing else was sent for this long. */
  heartbeatMs: number;
  /** LOG_STREAM_STALL_MS: how long a full buffer may stay full before the stream closes. */
  stallMs: number;
  /** LOG_STREAM_RECHECK_MS: how often the credential is checked again. */
  recheckMs: number;
}

/** A request asks for Server-Sent Events when its Accept names `text/event-stream`. */
export const wantsEventStream = (ctx: ApiContext) => /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(ctx.get('Accept'));

/** `Last-Event-ID` as a seq (a follower resuming), undefined when absent; anything but digits → 400. */
export function lastEventId(ctx: ApiContext): number | undefined {
  const value = ctx.get('Last-Event-ID').trim();
  if (!value) return undefined;
  if (!/^[0-9]{1,15}$/.test(value)) throw new AppError(400, 'invalid_request', 'Last-Event-ID must be the id of an event this stream sent (a line number).');
  return Number(value);
}

/**
 * One response of Server-Sent Events: `id:`, `event:` and one line of JSON `data:` per event, comments
 * as heartbeats. Writes go to a bounded buffer that the response drains as the reader reads.
 */
export class EventStream {
  readonly #body = new PassThrough({ highWaterMark: BUFFER_BYTES });
  readonly #stallMs: number;
  readonly #listeners: (() => void)[] = [];
  readonly #timers: NodeJS.Timeout[] = [];
  #closed = false;
  #wrote = false;

  constructor(ctx: ApiContext, heartbeatMs: number, stallMs: number) {
    this.#stallMs = stallMs;
    ctx.status = 200;
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-store');
    // Proxies that buffer responses (nginx) pass this one on as it comes.
    ctx.set('X-Accel-Buffering', 'no');
    ctx.req.socket.setNoDelay(true);
    ctx.body = this.#body;
    this.#body.on('close', () => this.#ended());
    // A reconnecting EventSource waits this long.
    this.#write('retry: 1000\n\n');
    this.every(heartbeatMs, () => {
      if (!this.#wrote) this.#write(': keep-alive\n\n');
      this.#wrote = false;
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** False when the buffer is full (the event is written all the same): wait for `drained`. */
  send(event: string, data: unknown, id?: number | string): boolean {
    return this.#write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  comment(text: string): boolean {
    return this.#write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
  }

  /** True once the reader took the buffer; false when it did not within the stall limit, or the stream closed. */
  drained(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (!this.#body.writableNeedDrain) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#body.off('drain', onDrain);
        this.#body.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(() => done(false), this.#stallMs);
      this.#body.on('drain', onDrain);
      this.#body.on('close', onClose);
    });
  }

  /** Runs `fn` every `ms` while the stream is open. */
  every(ms: number, fn: () => void): void {
    const timer = setInterval(fn, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#listeners.push(listener);
  }

  /** Ends the response; `why`, when given, is sent as a last comment. */
  close(why?: string): void {
    if (this.#closed) return;
    if (why) this.comment(why);
    this.#body.end();
    this.#ended();
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    this.#wrote = true;
    return this.#body.write(text);
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const listener of this.#listeners.splice(0)) listener();
  }
}

/**
 * Opens an event stream for the authenticated request (docs/product.md §10): takes one of the
 * credential's places (429 `rate_limited` when it holds them all, on any instance), keeps it renewed
 * (with every place this instance holds, in one command) while the stream is open and gives it back when
 * it closes; checks the credential again every LOG_STREAM_RECHECK_MS (from the caches every request
 * uses) and closes the stream once it is revoked, expired or has lost `read`; then runs `run` with the
 * stream, not awaited: the response goes out while it runs.
 */
export async function openEventStream(ctx: ApiContext, deps: EventStreamDeps, run: (stream: EventStream) => Promise<void>): Promise<void> {
  const principal = ctx.state.principal;
  const place = await deps.places.claim(credentialBucket(principal));
  if (!place)
    throw new AppError(429, 'rate_limited', 'This credential holds as many open event streams as it may; close one first.', { headers: { 'Retry-After': '5' } });
  const stream = new EventStream(ctx, deps.heartbeatMs, deps.stallMs);
  // The instance renews all the places its streams hold together (StreamPlaces.hold).
  deps.places.hold(place, () => stream.close('closed: this stream lost its place'));
  stream.onClose(() => void deps.places.release(place).catch(() => undefined));
  deps.followers.track({ close: () => stream.close('closed: the server is shutting down; reconnect with Last-Event-ID'), onClose: (listener) => stream.onClose(listener) });
  const recheck = ctx.state.recheckCredential;
  let checking = false;
  if (recheck)
    stream.every(deps.recheckMs, () => {
      if (checking) return;
      checking = true;
      recheck()
        .then((now: Principal) => now.scopes.has('read') || stream.close('closed: the credential no longer has the read scope'))
        .catch((err: unknown) => {
          // Revoked, expired, signed out: the stream ends. A database outage ends it too (the reader resumes).
          stream.close(err instanceof AppError && err.status === 401 ? 'closed: the credential was revoked or has expired' : 'closed: the credential could not be checked');
        })
        .finally(() => (checking = false));
    });
  // `run` reports its own failures (the follower logs them); the stream ends either way.
  void run(stream)
    .catch(() => undefined)
    .finally(() => stream.close());
}
