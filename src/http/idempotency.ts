import type { Next } from 'koa';
import { credentialBucket } from '../auth/authenticate.ts';
import { conflict, idempotencyKeyReused } from '../errors.ts';
import type { IdempotencyDoc, IdempotencyKeyRepository } from '../repositories/idempotencyKeys.ts';
import { documented, type ApiContext, type ApiMiddleware } from './apiContext.ts';
import { IDEMPOTENCY_KEY_SCHEMA, idempotencyKeyOf } from './idempotencyKeyHeader.ts';
import { sha256Hex } from '../lib/hash.ts';

const WAIT_FOR_FIRST_MS = 10_000;


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

export interface IdempotencyOptions {
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

function withoutFields(value: unknown, fields: readonly string[], replacement: (v: unknown) => unknown): unknown {
  if (!fields.length || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const field of fields) if (Object.hasOwn(copy, field)) copy[field] = replacement(copy[field]);
  return copy;
}

/**
 * `Idempotency-Key` on POST (PRODUCT §6). The key is scoped to the credential and claimed by an insert
 * on a unique `_id` BEFORE the handler runs, so of two concurrent identical requests exactly one runs;
 * the other waits for it and gets the same response. The same key with the same body within 24 h
 * replays the first (successful) response with `Idempotent-Replayed: true`; with a different request
 * → 422 `idempotency_key_reused`. A request that fails is forgotten, so retrying it runs it again.
 * Goes after `validate`: a request that does not validate is not remembered.
 */
export function idempotent(repo: IdempotencyKeyRepository, options: IdempotencyOptions = {}): ApiMiddleware {
  const secretRequestFields = options.secretRequestFields ?? [];
  const shownOnce = options.shownOnceResponseFields ?? [];
  const middleware = async (ctx: ApiContext, next: Next) => {
    const key = idempotencyKeyOf(ctx);
    if (key === undefined) return await next();
    const id = sha256Hex(`${ctx.state.principal.accountId}\n${credentialBucket(ctx.state.principal)}\n${key}`);
    const fingerprinted = withoutFields(ctx.request.body ?? {}, secretRequestFields, (v) => (v === undefined || v === null ? v : '(secret)'));
    const fingerprint = sha256Hex(`${ctx.method} ${ctx.path}\n${canonical(fingerprinted)}`);

    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
      const holder = await repo.reserve(id, fingerprint);
      if (!holder) break;
      if (holder.fingerprint !== fingerprint) throw idempotencyKeyReused();
      const done = holder.state === 'done' ? holder : await waitUntilDone(repo, id, deadline, delay);
      if (done === 'gone') continue;
      if (!done) throw conflict('A request with this Idempotency-Key is still in progress; retry shortly.');
      if (done.fingerprint !== fingerprint) throw idempotencyKeyReused();
      replay(ctx, done);
      return;
    }

    try {
      await next();
    } catch (err) {
      await repo.release(id);
      throw err;
    }
    if (ctx.status >= 200 && ctx.status < 300) {
      const location = ctx.response.get('Location');
      const stored = withoutFields(ctx.body ?? null, shownOnce, () => null);
      await repo.complete(id, { status: ctx.status, body: JSON.stringify(stored), location: location || null });
    } else {
      await repo.release(id);
    }
  };
  return documented(middleware, (op) => {
    op.headers.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Any unique string (1–255 visible ASCII characters, e.g. a UUID). Retrying with the same key and body within 24 hours returns the first response and creates nothing new.' +
        (shownOnce.length ? ` A replay answers ${shownOnce.map((f) => `\`${f}\``).join(', ')} as \`null\`: a secret is shown once.` : ''),
      schema: IDEMPOTENCY_KEY_SCHEMA,
    });
    op.errors.add('idempotency_key_reused').add('invalid_request').add('conflict');
  });
}

/** Polls the first request's reservation: its result, 'gone' when it failed and was released, or null on timeout. */
async function waitUntilDone(repo: IdempotencyKeyRepository, id: string, deadline: number, delay: number): Promise<IdempotencyDoc | 'gone' | null> {
  while (Date.now() < deadline) {
    await sleep(delay);
    const doc = await repo.find(id);
    if (!doc) return 'gone';
    if (doc.state === 'done') return doc;
    delay = Math.min(delay * 2, 250);
  }
  return null;
}

function replay(ctx: ApiContext, doc: IdempotencyDoc): void {
  const response = doc.response!;
  ctx.status = response.status;
  if (response.location) ctx.set('Location', response.location);
  ctx.set('Idempotent-Replayed', 'true');
  ctx.body = JSON.parse(response.body) as unknown;
}
