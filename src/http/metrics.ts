import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export type LoginOutcome = 'ok' | 'failed' | 'throttled';
export type RateLimitName = 'api' | 'token' | 'device_code';
export type WebhookOutcome = 'success' | 'failure' | 'timeout' | 'gave_up';

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code']);
/** Driver command names are a fixed vocabulary; anything unexpected is folded into one value. */
const DB_COMMAND = /^[A-Za-z]{1,40}$/;

/**
 * The process's metrics: one registry and every series on it (HTTP, logins, tokens, rate limits, the
 * database driver, webhooks). Built once by the composition root (src/container.ts, `container.metrics`)
 * and handed to whatever reports or serves them. Every label has a small fixed set of values: no ids,
 * paths or emails.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'slipway_' });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets = LATENCY_BUCKETS) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
  const httpDuration = histogram('slipway_http_request_duration_seconds', 'HTTP request duration by method, route and status', ['method', 'route', 'status']);
  const httpTotal = counter('slipway_http_requests_total', 'HTTP requests by method, route and status', ['method', 'route', 'status']);
  const httpSeries = new Map<string, { duration: { observe(seconds: number): void }; total: { inc(): void } }>();
  return {
    registry,
    logins: counter('slipway_logins_total', 'Sign-ins on the authorization server login page by outcome (ok, failed, throttled)', ['outcome']),
    tokensIssued: counter('slipway_tokens_issued_total', 'Successful token endpoint responses by grant type', ['grant_type']),
    refreshTokenReuse: counter('slipway_refresh_token_reuse_total', 'Refresh tokens presented again after use (the grant is revoked each time)'),
    rateLimitRefusals: counter('slipway_rate_limit_refusals_total', 'Requests refused with 429 by limit (api: /v1 per credential, token: token endpoint per client, device_code: device code page per source)', ['limit']),
    dbCommandDuration: histogram('slipway_db_command_duration_seconds', 'Database command duration (driver command monitoring) by command name', ['command']),
    dbCommandFailures: counter('slipway_db_command_failures_total', 'Database commands that failed, by command name', ['command']),
    /** For the webhook sender: one increment per delivery attempt, labelled by its outcome. */
    webhookDeliveries: counter('slipway_webhook_deliveries_total', 'Webhook delivery attempts by outcome (success, failure, timeout, gave_up)', ['outcome']),
    /** For the webhook sender: endpoints paused as a whole after failing attempts in a row (circuit opened). */
    webhookEndpointsPaused: counter('slipway_webhook_endpoints_paused_total', 'Webhook endpoints paused after WEBHOOK_CIRCUIT_FAILURES failed attempts in a row'),
    /** For the webhook sender: how long each delivery attempt took, labelled by its outcome. */
    webhookDeliveryDuration: histogram('slipway_webhook_delivery_duration_seconds', 'Webhook delivery attempt duration by outcome', ['outcome'], [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),

    login(outcome: LoginOutcome): void {
      this.logins.inc({ outcome });
    },
    tokenIssued(grantType: unknown): void {
      this.tokensIssued.inc({ grant_type: typeof grantType === 'string' && GRANT_TYPES.has(grantType) ? grantType : 'other' });
    },
    rateLimited(limit: RateLimitName): void {
      this.rateLimitRefusals.inc({ limit });
    },
    dbCommand(commandName: string, seconds: number, failed: boolean): void {
      const command = DB_COMMAND.test(commandName) ? commandName : 'other';
      this.dbCommandDuration.observe({ command }, seconds);
      if (failed) this.dbCommandFailures.inc({ command });
    },
    webhookDelivery(outcome: WebhookOutcome, seconds: number): void {
      this.webhookDeliveries.inc({ outcome });
      this.webhookDeliveryDuration.observe({ outcome }, seconds);
    },
    webhookEndpointPaused(): void {
      this.webhookEndpointsPaused.inc();
    },
    /**
     * One HTTP request answered (src/http/requestContext.ts). The labelled series of each method, route and
     * status are looked up once and held (a bounded set: routes are labels of routeLabel, methods and
     * statuses are few), so a request does not hash its labels twice.
     */
    observe(method: string, route: string, status: number, seconds: number): void {
      const key = `${method} ${route} ${status}`;
      let series = httpSeries.get(key);
      if (!series) {
        const labels = { method, route, status: String(status) };
        series = { duration: httpDuration.labels(labels), total: httpTotal.labels(labels) };
        httpSeries.set(key, series);
      }
      series.duration.observe(seconds);
      series.total.inc();
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

