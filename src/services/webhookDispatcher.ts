import type { Config } from '../config/index.ts';
import type { Clock } from '../lib/clock.ts';
import { PollLoop } from '../lib/pollLoop.ts';
import type { Logger } from '../logger.ts';
import type { Repositories } from '../repositories/index.ts';
import type { DeliveryAttempt } from '../repositories/webhookDeliveries.ts';
import type { WebhookCircuitDoc } from '../repositories/webhookCircuits.ts';
import type { WebhookQueueEntry } from '../repositories/webhookQueue.ts';
import type { WebhookStatus } from '../repositories/webhooks.ts';
import type { EventLog } from './eventLog.ts';
import type { SecretBox } from '../keys/secretBox.ts';
import { signingSecrets } from './webhooks.ts';
import { postWebhook } from './webhookSender.ts';
import { signatureHeader } from './webhookSigning.ts';
import { checkTarget, TargetRefused } from './webhookTargets.ts';
import { Service } from './service.ts';

/** Longer than any attempt (twice its timeout, plus time for the database writes): a lease outlives its holder only when the holder died. */
const leaseMs = (timeoutMs: number) => 2 * timeoutMs + 5_000;
const MAX_DELAY_MS = 3600_000;
/**
 * Attempts at once per instance, over all endpoints: enough for many slow receivers (each endpoint has
 * at most WEBHOOK_ENDPOINT_CONCURRENCY of them), few enough to leave the database to the API.
 */
const MAX_IN_FLIGHT = 32;

/** How one delivery attempt ended, for metrics: `gave_up` is a failure that ended its retry window. */
export type DeliveryOutcome = 'success' | 'failure' | 'timeout' | 'gave_up';

/** What the dispatcher reports: the process's metrics handle (src/http/metrics.ts) has both. */
export interface DeliveryMetrics {
  /** Every attempt made by this instance, by outcome. */
  webhookDelivery(outcome: DeliveryOutcome, seconds: number): void;
  /** This instance paused an endpoint (its circuit opened). */
  webhookEndpointPaused(): void;
}

export interface DispatcherDeps extends Pick<Repositories, 'webhooks' | 'webhookDeliveries' | 'webhookQueue' | 'webhookCircuits' | 'webhookLeases'> {
  config: Config;
  logger: Logger;
  /** Opens the endpoints' signing secrets. */
  secretBox: SecretBox;
  /** Records `webhook.disabled`. */
  eventLog: EventLog;
  metrics: DeliveryMetrics;
  /**
   * When an entry is due, a retry's backoff, leases and circuits are measured by it (src/lib/clock.ts);
   * the loop reads it on every poll. An attempt's own timestamp (signed, sent) and duration are real time.
   */
  clock: Clock;
}

/** Exponential backoff with ±25 % jitter: base · 2^(n−1), at most an hour. `n` is the attempt that just failed. */
export function retryDelayMs(baseMs: number, attempt: number, random = Math.random()): number {
  const delay = Math.min(baseMs * 2 ** Math.min(attempt - 1, 30), MAX_DELAY_MS);
  return Math.round(delay * (0.75 + random * 0.5));
}

/** The lease that is one of the endpoint's `n` places for an attempt in flight. */
const slotLeaseId = (webhookId: string, slot: number) => `${webhookId}#slot${slot}`;

/**
 * Makes the delivery attempts of the queue in MongoDB (docs/product.md §7). Every instance runs one.
 *
 * Fair to every endpoint: each poll lists the endpoints that have due work (one id each, however long
 * their backlog) and visits them in turn, starting after the one it served last, taking each
 * endpoint's oldest due entries only while the endpoint has a free place: at most
 * WEBHOOK_ENDPOINT_CONCURRENCY attempts are in flight to one endpoint, across all instances (a place
 * is a lease, `${webhook}#slot${n}`). So an endpoint that hangs or has a long backlog holds its own
 * places and never the others'.
 *
 * An endpoint whose attempts keep failing (WEBHOOK_CIRCUIT_FAILURES in a row) is paused as a whole (its
 * circuit opens, `webhook_circuits`): its deliveries wait, untried, until the circuit's time; then one
 * attempt (its oldest due delivery) probes it. A failed probe pauses it again for twice as long (the
 * retry schedule: base · 2^(n−1), at most an hour); a success closes the circuit and everything flows.
 *
 * Each attempt is made once: it is made by whichever instance inserts its lease (`${delivery}#${seq}`)
 * first, and the holder then records the result and moves the entry on to the next `seq` (or removes
 * it). An entry whose holder died (lease expired, entry unchanged) is moved on after the lease ends
 * and retried; a place whose holder died is taken over once its lease ended.
 */
export class WebhookDispatcher extends Service<DispatcherDeps> {
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Per endpoint, the places (slot numbers) this instance holds. */
  readonly #slots = new Map<string, Set<number>>();
  /** Endpoints that may have a circuit record: a success there closes it (others write nothing). */
  readonly #failing = new Set<string>();
  /** The endpoint served last: the next poll starts after it. */
  #cursor = '';
  readonly #loop = new PollLoop(() => this.poll(), () => this.deps.config.webhookPollIntervalMs);
  #polling: Promise<void> | undefined;
  #stopped = false;

  start(): void {
    this.#stopped = false;
    this.#loop.start();
  }

  /** Stops polling and waits for the poll and the attempts in flight (each bounded by the timeout). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop.stop();
    await this.#polling;
    await Promise.allSettled([...this.#inFlight.values()]);
  }

  /** One look at the queue: starts an attempt for every due entry this instance can claim, endpoint by endpoint. */
  async poll(): Promise<void> {
    if (this.#polling || this.#stopped) return;
    this.#polling = this.#poll().finally(() => (this.#polling = undefined));
    await this.#polling;
  }

  async #poll(): Promise<void> {
    const { logger } = this.deps;
    try {
      const now = this.deps.clock.date();
      const due = (await this.deps.webhookQueue.endpointsDue(now)).sort();
      if (due.length === 0) return;
      const [statuses, circuits] = await Promise.all([this.deps.webhooks.statuses(due), this.deps.webhookCircuits.findMany(due)]);
      for (const id of circuits.keys()) this.#failing.add(id);
      // Round robin: start after the endpoint served last, so every endpoint gets its turn first in some poll.
      const next = due.findIndex((id) => id > this.#cursor);
      const order = next <= 0 ? due : [...due.slice(next), ...due.slice(0, next)];
      for (const webhookId of order) {
        if (this.#stopped || this.#inFlight.size >= MAX_IN_FLIGHT) break;
        const status = statuses.has(webhookId) ? statuses.get(webhookId)! : null;
        const places = this.#places(status, circuits.get(webhookId), now);
        if ((this.#slots.get(webhookId)?.size ?? 0) >= places) continue;
        try {
          await this.#startFor(webhookId, status, places, now);
        } catch (err) {
          logger.warn({ err, webhook_id: webhookId }, 'webhook queue poll failed');
        }
        this.#cursor = webhookId;
      }
    } catch (err) {
      logger.warn({ err }, 'webhook queue poll failed');
    }
  }

  /** How many attempts may be in flight to the endpoint now. */
  #places(status: WebhookStatus | null, circuit: WebhookCircuitDoc | undefined, now: Date): number {
    // Gone or disabled: its entries are ended without a request, as fast as they come.
    if (status !== 'enabled') return this.deps.config.webhookEndpointConcurrency;
    if (!circuit?.open_until) return this.deps.config.webhookEndpointConcurrency;
    // Open: nothing until its time; then one probe at a time.
    return circuit.open_until > now ? 0 : 1;
  }

  /**
   * Claims free places of the endpoint and, for each, the oldest due entry whose attempt it can claim.
   * `places` comes from the poll's read of the circuit, which may be stale by the time a place is ours:
   * an attempt records its failure (and may open the circuit) before it frees its place, so the circuit
   * is read again once the first place is held, and the places it allows now are what count. Without
   * that, a poll that read the circuit closed (or a pause just over) could make an attempt after the
   * pause began, or a second probe after the first failed.
   */
  async #startFor(webhookId: string, status: WebhookStatus | null, places: number, now: Date): Promise<void> {
    const held = this.#slots.get(webhookId) ?? new Set<number>();
    // Read once a place is ours (an endpoint whose places other instances hold costs no read). At most
    // `places` entries are in flight anywhere, so twice that many holds enough free ones.
    let candidates: WebhookQueueEntry[] | undefined;
    let circuitChecked = false;
    for (let slot = 0; slot < places && (candidates === undefined || candidates.length > 0); slot++) {
      if (this.#stopped || this.#inFlight.size >= MAX_IN_FLIGHT) return;
      if (held.has(slot) || !(await this.#claimSlot(webhookId, slot, now))) continue;
      let started = false;
      try {
        if (!circuitChecked) {
          circuitChecked = true;
          const circuit = (await this.deps.webhookCircuits.find(webhookId)) ?? undefined;
          if (circuit) this.#failing.add(webhookId);
          places = Math.min(places, this.#places(status, circuit, this.deps.clock.date()));
          if (slot >= places) return;
        }
        candidates ??= (await this.deps.webhookQueue.dueFor(webhookId, now, 2 * places)).filter((e) => !this.#inFlight.has(e._id));
        while (!started && candidates.length > 0) {
          const claimed = await this.#claimAttempt(candidates.shift()!, now);
          if (!claimed) continue;
          started = true;
          this.#launch(webhookId, slot, this.#slotEnd(now), held, claimed.entry, claimed.leaseId);
        }
      } finally {
        if (!started) await this.deps.webhookLeases.release(slotLeaseId(webhookId, slot), this.#slotEnd(now)).catch(() => undefined);
      }
    }
  }

  /** Makes the attempt in the background, holding the endpoint's place `slot` until it is recorded. */
  #launch(webhookId: string, slot: number, slotEnd: Date, held: Set<number>, entry: WebhookQueueEntry, leaseId: string): void {
    held.add(slot);
    this.#slots.set(webhookId, held);
    const work = this.#run(entry, leaseId)
      .catch((err: unknown) => this.deps.logger.warn({ err, delivery_id: entry._id }, 'webhook delivery attempt failed'))
      .finally(() => {
        this.#inFlight.delete(entry._id);
        held.delete(slot);
        if (held.size === 0 && this.#slots.get(webhookId) === held) this.#slots.delete(webhookId);
        // Freed after the attempt's own records; if this fails, the place is taken over once its lease ends.
        return this.deps.webhookLeases.release(slotLeaseId(webhookId, slot), slotEnd).catch(() => undefined);
      });
    this.#inFlight.set(entry._id, work);
  }

  /** The end a place claimed (or taken over) at `now` was given. */
  #slotEnd(now: Date): Date {
    return new Date(now.getTime() + leaseMs(this.deps.config.webhookTimeoutMs));
  }

  /** True when this instance now holds the place (a fresh lease, or one whose holder died). */
  async #claimSlot(webhookId: string, slot: number, now: Date): Promise<boolean> {
    return await this.deps.webhookLeases.claimOrTakeOver(slotLeaseId(webhookId, slot), leaseMs(this.deps.config.webhookTimeoutMs), now);
  }

  /** The entry as it is now, with its attempt's lease held by this instance; null when the attempt is not this instance's to make. */
  async #claimAttempt(entry: WebhookQueueEntry, now: Date): Promise<{ entry: WebhookQueueEntry; leaseId: string } | null> {
    const { webhookLeases, webhookQueue } = this.deps;
    const leaseId = `${entry._id}#${entry.seq}`;
    if (!(await webhookLeases.tryClaim(leaseId, leaseMs(this.deps.config.webhookTimeoutMs), now))) {
      const lease = await webhookLeases.find(leaseId);
      if (lease && lease.expires_at <= now) await webhookQueue.skipClaim(entry._id, entry.seq);
      return null;
    }
    // What the poll saw may be stale: another instance may have made this attempt and moved on.
    const current = await webhookQueue.findById(entry._id).catch(async (err: unknown) => {
      await webhookLeases.release(leaseId).catch(() => undefined);
      throw err;
    });
    if (!current || current.seq !== entry.seq || current.due_at > this.deps.clock.date()) {
      await webhookLeases.release(leaseId);
      return null;
    }
    return { entry: current, leaseId };
  }

  async #run(entry: WebhookQueueEntry, leaseId: string): Promise<void> {
    const { webhookLeases, webhookQueue } = this.deps;
    let done = false;
    try {
      await this.#attempt(entry);
      done = true;
    } finally {
      // A failed attempt (database trouble) keeps its lease until it expires, then the entry is retried.
      if (done || !(await webhookQueue.findById(entry._id).catch(() => null))) await webhookLeases.release(leaseId);
    }
  }

  /** Counts the attempt toward the endpoint's circuit: a failure may open it, a success closes it. */
  async #recordHealth(webhookId: string, ok: boolean, now: Date): Promise<void> {
    const { config } = this.deps;
    if (ok) {
      if (!this.#failing.has(webhookId)) return;
      await this.deps.webhookCircuits.reset(webhookId);
      this.#failing.delete(webhookId);
      return;
    }
    this.#failing.add(webhookId);
    const threshold = config.webhookCircuitFailures;
    const circuit = await this.deps.webhookCircuits.recordFailure(webhookId, now, (failures) =>
      failures >= threshold ? new Date(now.getTime() + retryDelayMs(config.webhookRetryBaseMs, failures - threshold + 1)) : null,
    );
    if (circuit.failures !== threshold) return;
    this.deps.metrics.webhookEndpointPaused();
    this.deps.logger.warn({ webhook_id: webhookId, failures: circuit.failures, until: circuit.open_until }, 'webhook endpoint paused after failing attempts in a row');
  }

  async #attempt(entry: WebhookQueueEntry): Promise<void> {
    const { config, secretBox, logger } = this.deps;
    const delivery = await this.deps.webhookDeliveries.findById(entry._id);
    if (!delivery) return await this.deps.webhookQueue.remove(entry._id);
    const webhook = await this.deps.webhooks.findById(delivery.webhook_id);
    if (!webhook || webhook.status !== 'enabled') {
      await this.deps.webhookDeliveries.recordAttempt(delivery._id, null, { status: 'failed', next_attempt_at: null });
      return await this.deps.webhookQueue.remove(entry._id);
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
    const report = (outcome: DeliveryOutcome) => this.deps.metrics.webhookDelivery(outcome, result.duration_ms / 1000);
    const failure: DeliveryOutcome = result.status_code === null && result.error?.startsWith('timed out') ? 'timeout' : 'failure';
    const next = new Date(this.deps.clock.now() + retryDelayMs(config.webhookRetryBaseMs, attemptNumber));
    const windowEnd = entry.window_started_at.getTime() + config.webhookRetryWindowSeconds * 1000;
    const gaveUp = !ok && next.getTime() > windowEnd;
    report(ok ? 'success' : gaveUp ? 'gave_up' : failure);
    if (ok) {
      await this.deps.webhookDeliveries.recordAttempt(delivery._id, attempt, { status: 'succeeded', next_attempt_at: null, succeeded_at: new Date() });
      await this.deps.webhookQueue.remove(entry._id);
    } else if (!gaveUp) {
      await this.deps.webhookDeliveries.recordAttempt(delivery._id, attempt, { status: 'pending', next_attempt_at: next });
      await this.deps.webhookQueue.reschedule(entry._id, entry.seq, next);
    } else {
      await this.deps.webhookDeliveries.recordAttempt(delivery._id, attempt, { status: 'failed', next_attempt_at: null });
      await this.deps.webhookQueue.remove(entry._id);
    }
    // After the delivery's own record (what must not be lost), and before its place is freed, so a
    // circuit that opens here holds back the next attempt.
    await this.#recordHealth(webhook._id, ok, this.deps.clock.date()).catch((err: unknown) => logger.warn({ err, webhook_id: webhook._id }, 'webhook endpoint health not recorded'));
    if (!gaveUp) return;
    // A whole retry window of failures, and nothing delivered to the endpoint meanwhile: disable it.
    if (await this.deps.webhookDeliveries.succeededSince(webhook._id, entry.window_started_at)) return;
    const disabled = await this.deps.webhooks.disable(webhook._id, this.deps.clock.date());
    if (!disabled) return;
    logger.warn({ webhook_id: webhook._id, account_id: webhook.account_id }, 'webhook endpoint disabled after failing for the whole retry window');
    const data = { webhook_id: webhook._id, host: new URL(webhook.url).host, reason: 'failing', failing_since: entry.window_started_at.toISOString() };
    await this.deps.eventLog.record('webhook.disabled', { type: 'system', id: 'webhooks' }, webhook, data);
  }
}
