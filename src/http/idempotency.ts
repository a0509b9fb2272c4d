import { systemClock, type Clock } from '../lib/clock.ts';
import type { Next } from 'koa';
import { credentialBucket } from './authenticate.ts';
import { AppError, idempotencyKeyReused } from '../errors.ts';
import { claimedAt, type IdempotencyDoc, type IdempotencyKeyRepository } from '../repositories/idempotencyKeys.ts';
import { documented, type ApiContext, type ApiMiddleware } from './apiContext.ts';
import { IDEMPOTENCY_KEY_SCHEMA, idempotencyKeyOf } from './idempotencyKeyHeader.ts';
import { sha256Hex } from '../lib/hash.ts';


/** JSON with sorted keys: the same body in another key order or spacing is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface IdempotencyTimings {
  /** How long a request waits for a concurrent one with the same key before answering 409. */
  waitMs: number;
  /** After how long a request still pending under the key (its instance or the database died) is run again. */
  takeoverMs: number;
  /** What `takeoverMs` is measured by (src/lib/clock.ts); the wait for a concurrent request is real time. Default the system clock. */
  clock?: Clock;
}

export interface IdempotencyOptions {
  /**
   * For a route that creates a resource: makes its id. The id is fixed in the reservation before the
   * handler runs and handed to it as `ctx.state.resourceId`; every run of the request (a retry after a
   * failure or a crash) gets the same one, and the service answers a run whose resource already
   * exists with that resource (never a second one, never a conflict with itself).
   */
  newResourceId?: () => string;
  /**
   * Top-level request fields that carry a secret (a password, a secret value). They are left out of the
   * stored fingerprint, which is only a SHA-256 and would otherwise let a low-entropy secret be guessed
   * offline from the database; whether they were sent still counts.
   */
  secretRequestFields?: readonly string[];
  /**
   * Top-level response fields shown once (an API key, a client secret, a setup link). They are stored
   * as `null`: a replay answers with the first response minus the secret, which is never stored in
   * plaintext nor returned twice.
   */
  shownOnceResponseFields?: readonly string[];
}

export type IdempotentFactory = (options?: IdempotencyOptions) => ApiMiddleware;

function withoutFields(value: unknown, fields: readonly string[], replacement: (v: unknown) => unknown): unknown {
  if (!fields.length || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const field of fields) if (Object.hasOwn(copy, field)) copy[field] = replacement(copy[field]);
  return copy;
}

/** The outcome of an earlier run is not known yet: 409 with Retry-After (docs/OPERATIONS.md, "Crash-safe writes and outages"). */
const inProgress = (retryAfterSeconds: number) =>
  new AppError(409, 'conflict', 'A request with this Idempotency-Key is still in progress; retry with the same key shortly.', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

/**
 * `Idempotency-Key` on POST (docs/product.md §6), executed at most once even across crashes of the service or
 * the database. The key is scoped to the credential and claimed by an insert of a unique `_id` BEFORE
 * the handler runs; that record also fixes the id of the resource the request creates.
 *
 * - Same key and body again: the stored response (`Idempotent-Replayed: true`); another body → 422.
 * - While another request holds the key, wait up to `waitMs` for its answer; then 409 `conflict` with
 *   Retry-After (the outcome is not known yet).
 * - A request that failed, or that has been pending for `takeoverMs` (its instance or the database died
 *   mid-request), is run again by the retry under the same resource id: the service then returns what
 *   an earlier run created, so the client gets its own resource and never a second one. Two runs at
 *   once (a slow first run and a takeover) are safe for the same reason: the resource's unique id.
 *
 * Goes after `validate`: a request that does not validate is not remembered.
 */
export function createIdempotent(repo: IdempotencyKeyRepository, timings: IdempotencyTimings): IdempotentFactory {
  return (options = {}) => idempotent(repo, timings, options);
}

export function idempotent(repo: IdempotencyKeyRepository, timings: IdempotencyTimings, options: IdempotencyOptions = {}): ApiMiddleware {
  const secretRequestFields = options.secretRequestFields ?? [];
  const shownOnce = options.shownOnceResponseFields ?? [];
  const middleware = async (ctx: ApiContext, next: Next) => {
    const key = idempotencyKeyOf(ctx);
    if (key === undefined) return await next();
    const id = sha256Hex(`${ctx.state.principal.accountId}\n${credentialBucket(ctx.state.principal)}\n${key}`);
    const fingerprinted = withoutFields(ctx.request.body ?? {}, secretRequestFields, (v) => (v === undefined || v === null ? v : '(secret)'));
    const fingerprint = sha256Hex(`${ctx.method} ${ctx.path}\n${canonical(fingerprinted)}`);

    const run = async (resourceId: string | null | undefined) => {
      if (resourceId) ctx.state.resourceId = resourceId;
      try {
        await next();
      } catch (err) {
        // Not awaited: the error answers at once. If the database is down this fails too; the record
        // then stays pending and a retry takes it over.
        void repo.fail(id).catch(() => undefined);
        throw err;
      }
      if (ctx.status >= 200 && ctx.status < 300) {
        const location = ctx.response.get('Location');
        const stored = withoutFields(ctx.body ?? null, shownOnce, () => null);
        await repo.complete(id, { status: ctx.status, body: JSON.stringify(stored), location: location || null });
      } else {
        await repo.fail(id);
      }
    };

    const clock = timings.clock ?? systemClock;
    const deadline = Date.now() + timings.waitMs;
    for (let attempt = 0, delay = 20; attempt < 100; attempt++) {
      const resourceId = options.newResourceId?.() ?? null;
      const holder = await repo.reserve(id, fingerprint, resourceId, clock.date());
      if (!holder) return await run(resourceId);
      if (holder.state === 'failed') {
        if (holder.fingerprint !== fingerprint) {
          // Failed requests are not remembered: the key may carry another request now.
          await repo.forget(id);
          continue;
        }
        await repo.claim(id, clock.date());
        return await run(holder.resource_id);
      }
      if (holder.fingerprint !== fingerprint) throw idempotencyKeyReused();
      if (holder.state === 'done') return replay(ctx, holder);

      const pendingFor = clock.now() - claimedAt(holder).getTime();
      if (pendingFor >= timings.takeoverMs) {
        await repo.claim(id, clock.date());
        return await run(holder.resource_id);
      }
      if (Date.now() + delay > deadline) throw inProgress(Math.max(1, Math.ceil((timings.takeoverMs - pendingFor) / 1000)));
      await sleep(delay);
      delay = Math.min(delay * 2, 250);
    }
    throw inProgress(1);
  };
  return documented(middleware, (op) => {
    op.headers.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Any unique string (1–255 visible ASCII characters, e.g. a UUID). Retrying with the same key and body within 24 hours returns the first response and creates nothing new, even if the service or its database failed during the first attempt. While the first attempt\'s outcome is not known yet, the answer is 409 `conflict` with `Retry-After`: retry with the same key.' +
        (shownOnce.length ? ` A replay answers ${shownOnce.map((f) => `\`${f}\``).join(', ')} as \`null\`: a secret is shown once.` : ''),
      schema: IDEMPOTENCY_KEY_SCHEMA,
    });
    op.errors.add('idempotency_key_reused').add('invalid_request').add('conflict');
  });
}

function replay(ctx: ApiContext, doc: IdempotencyDoc): void {
  const response = doc.response!;
  ctx.status = response.status;
  if (response.location) ctx.set('Location', response.location);
  ctx.set('Idempotent-Replayed', 'true');
  ctx.body = JSON.parse(response.body) as unknown;
}
