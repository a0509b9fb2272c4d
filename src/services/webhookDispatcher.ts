import type { Config } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import type { Repositories } from '../repositories/index.ts';
import type { DeliveryAttempt } from '../repositories/webhookDeliveries.ts';
import type { WebhookQueueEntry } from '../repositories/webhookQueue.ts';
import { recordEvent } from './events.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import { signingSecrets } from './webhooks.ts';
import { postWebhook } from './webhookSender.ts';
import { signatureHeader } from './webhookSigning.ts';
import { checkTarget, TargetRefused } from './webhookTargets.ts';

/** Longer than any attempt (twice its timeout, plus time for the database writes): a lease outlives its holder only when the holder died. */
const leaseMs = (timeoutMs: number) => 2 * timeoutMs + 5_000;
const MAX_DELAY_MS = 3600_000;
const BATCH = 50;
/** Attempts at once per instance: enough that a few slow receivers do not hold up the rest, few enough to leave the database to the API. */
const MAX_IN_FLIGHT = 8;

/** How one delivery attempt ended, for metrics: `gave_up` is a failure that ended its retry window. */
export type DeliveryOutcome = 'success' | 'failure' | 'timeout' | 'gave_up';

export interface DispatcherDeps {
  config: Config;
  logger: Logger;
  repos: Repositories;
  secretBox: SecretBox;
  /** Told of every attempt made by this instance (the metrics of src/http/metrics.ts). */
  onAttempt?: (outcome: DeliveryOutcome, seconds: number) => void;
}

/** Exponential backoff with ±25 % jitter: base · 2^(n−1), at most an hour. `n` is the attempt that just failed. */
export function retryDelayMs(baseMs: number, attempt: number, random = Math.random()): number {
  const delay = Math.min(baseMs * 2 ** Math.min(attempt - 1, 30), MAX_DELAY_MS);
  return Math.round(delay * (0.75 + random * 0.5));
}

/**
 * Makes the delivery attempts of the queue in MongoDB (PRODUCT §7). Every instance runs one. Each
 * poll reads the due entries; an attempt is made by whichever instance inserts its lease
 * (`${delivery}#${seq}`) first, and the holder then records the result and moves the entry on to the
 * next `seq` (or removes it), so with any number of instances each attempt is made once. An entry whose
 * holder died (lease expired, entry unchanged) is moved on after the lease ends and retried.
 */
export class WebhookDispatcher {
  readonly #deps: DispatcherDeps;
  readonly #inFlight = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #stopped = false;

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule();
  }

  /** Stops polling and waits for the poll and the attempts in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#polling;
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.poll().finally(() => this.#schedule()), this.#deps.config.webhookPollIntervalMs);
    this.#timer.unref();
  }

  /** One look at the queue: starts an attempt for every due entry this instance can claim. */
  async poll(): Promise<void> {
    if (this.#polling || this.#stopped) return;
    this.#polling = this.#poll().finally(() => (this.#polling = undefined));
    await this.#polling;
  }

  async #poll(): Promise<void> {
    try {
      const now = new Date();
      for (const entry of await this.#deps.repos.webhookQueue.due(now, BATCH)) {
        if (this.#stopped || this.#inFlight.size >= MAX_IN_FLIGHT) break;
        if (this.#inFlight.has(entry._id)) continue;
        const work = this.#claim(entry, now)
          .catch((err: unknown) => this.#deps.logger.warn({ err, delivery_id: entry._id }, 'webhook delivery attempt failed'))
          .finally(() => this.#inFlight.delete(entry._id));
        this.#inFlight.set(entry._id, work);
      }
    } catch (err) {
      this.#deps.logger.warn({ err }, 'webhook queue poll failed');
    }
  }

  async #claim(entry: WebhookQueueEntry, now: Date): Promise<void> {
    const { webhookLeases, webhookQueue } = this.#deps.repos;
    const leaseId = `${entry._id}#${entry.seq}`;
    if (!(await webhookLeases.tryClaim(leaseId, leaseMs(this.#deps.config.webhookTimeoutMs), now))) {
      const lease = await webhookLeases.find(leaseId);
      if (lease && lease.expires_at <= now) await webhookQueue.skipClaim(entry._id, entry.seq);
      return;
    }
    let done = false;
    try {
      // What the poll saw may be stale: another instance may have made this attempt and moved on.
      const current = await webhookQueue.findById(entry._id);
      done = true;
      if (!current || current.seq !== entry.seq || current.due_at > new Date()) return;
      done = false;
      await this.#attempt(current);
      done = true;
    } finally {
      // A failed attempt (database trouble) keeps its lease until it expires, then the entry is retried.
      if (done || !(await webhookQueue.findById(entry._id).catch(() => null))) await webhookLeases.release(leaseId);
    }
  }

  async #attempt(entry: WebhookQueueEntry): Promise<void> {
    const { config, repos, secretBox, logger } = this.#deps;
    const delivery = await repos.webhookDeliveries.findById(entry._id);
    if (!delivery) return await repos.webhookQueue.remove(entry._id);
    const webhook = await repos.webhooks.findById(delivery.webhook_id);
    if (!webhook || webhook.status !== 'enabled') {
      await repos.webhookDeliveries.recordAttempt(delivery._id, null, { status: 'failed', next_attempt_at: null });
      return await repos.webhookQueue.remove(entry._id);
    }

    const started = new Date();
    const timestamp = Math.floor(started.getTime() / 1000);
    let result: Omit<DeliveryAttempt, 'at'>;
    try {
      const target = await checkTarget(webhook.url, { allowLoopback: config.webhookAllowLoopback });
      const headers = {
        'content-type': 'application/json',
        'user-agent': `Slipway-Webhooks/1.0 (+${config.publicUrl})`,
        'slipway-event': delivery.event_type,
        'slipway-delivery': delivery._id,
        'slipway-signature': signatureHeader(signingSecrets(secretBox, webhook, started), timestamp, delivery.payload),
      };
      result = await postWebhook(target, headers, delivery.payload, config.webhookTimeoutMs);
    } catch (err) {
      if (!(err instanceof TargetRefused)) throw err;
      result = { status_code: null, duration_ms: Date.now() - started.getTime(), error: `refused: ${err.message}` };
    }
    const attempt: DeliveryAttempt = { at: started, ...result };
    const attemptNumber = delivery.attempts.length + 1;
    logger.info(
      { delivery_id: delivery._id, webhook_id: webhook._id, attempt: attemptNumber, status_code: result.status_code, duration_ms: result.duration_ms, error: result.error },
      'webhook delivery attempt',
    );
    const ok = result.status_code !== null && result.status_code >= 200 && result.status_code < 300;
    const report = (outcome: DeliveryOutcome) => this.#deps.onAttempt?.(outcome, result.duration_ms / 1000);
    const failure: DeliveryOutcome = result.status_code === null && result.error?.startsWith('timed out') ? 'timeout' : 'failure';
    if (ok) {
      report('success');
      await repos.webhookDeliveries.recordAttempt(delivery._id, attempt, { status: 'succeeded', next_attempt_at: null, succeeded_at: new Date() });
      return await repos.webhookQueue.remove(entry._id);
    }

    const next = new Date(Date.now() + retryDelayMs(config.webhookRetryBaseMs, attemptNumber));
    const windowEnd = entry.window_started_at.getTime() + config.webhookRetryWindowSeconds * 1000;
    if (next.getTime() <= windowEnd) {
      report(failure);
      await repos.webhookDeliveries.recordAttempt(delivery._id, attempt, { status: 'pending', next_attempt_at: next });
      return await repos.webhookQueue.reschedule(entry._id, entry.seq, next);
    }
    report('gave_up');
    await repos.webhookDeliveries.recordAttempt(delivery._id, attempt, { status: 'failed', next_attempt_at: null });
    await repos.webhookQueue.remove(entry._id);
    // A whole retry window of failures, and nothing delivered to the endpoint meanwhile: disable it.
    if (await repos.webhookDeliveries.succeededSince(webhook._id, entry.window_started_at)) return;
    const disabled = await repos.webhooks.disable(webhook._id, new Date());
    if (!disabled) return;
    logger.warn({ webhook_id: webhook._id, account_id: webhook.account_id }, 'webhook endpoint disabled after failing for the whole retry window');
    await recordEvent(repos, {
      accountId: webhook.account_id,
      type: 'webhook.disabled',
      actor: { type: 'system', id: 'webhooks' },
      data: { webhook_id: webhook._id, host: new URL(webhook.url).host, reason: 'failing', failing_since: entry.window_started_at.toISOString() },
    });
  }
}
