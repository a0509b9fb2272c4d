import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import { createApp } from './app.ts';
import type { Config } from './config/index.ts';
import { httpServerOptions, onClientError } from './http/edge.ts';
import { metricsExposure, startMetricsListener, watchDatabaseCommands } from './http/metricsEndpoint.ts';
import type { Clock } from './lib/clock.ts';
import type { Logger } from './logger.ts';
import { createProvider } from './oauth/provider/index.ts';
import { sweepExpired } from './repositories/index.ts';
import { openContainer, type Container } from './container.ts';
import { ListenError } from './startupFailure.ts';
import { PollLoop } from './lib/pollLoop.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Everything the process is made of (src/container.ts). */
  container: Container;
  provider: Provider;
  server: http.Server;
  /** The separate /metrics listener's URL, when `metricsListen` is set. */
  metricsUrl: string | undefined;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes the database. */
  close(): Promise<void>;
}

/** The start log's second line: with no user yet, how to make the first one; otherwise where to sign in. */
async function nextStep(container: Container, dashboard: string): Promise<string> {
  const anyUser = await container.repos.users.collection.findOne({}, { projection: { _id: 1 } }).catch(() => undefined);
  if (anyUser === null)
    return `next: create the first user with \`npx slipway users create --email you@example.com --name You --role owner\`, then sign in at ${dashboard}`;
  return `next: sign in at ${dashboard}`;
}

export interface StartOptions {
  /** The clock the process decides by (default the system clock; tests pass theirs, src/lib/clock.ts). */
  clock?: Clock;
}

export async function startServer(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  const container = await openContainer(config, logger, options.clock ? { clock: options.clock } : {});
  const { database, repos, keys, metrics, clock } = container;
  let shuttingDown = false;
  const provider = createProvider({ config, keys, repos, db: database.db, logger, metrics, clock, tokenExchange: container.services.tokenExchange });
  await container.services.dashboardClient.ensureRegistered();
  await container.services.cliClient.ensureRegistered();
  const app = createApp({ container, provider, isShuttingDown: () => shuttingDown });

  const server = http.createServer(httpServerOptions(config), app.callback());
  server.keepAliveTimeout = 65_000;
  server.on('clientError', onClientError(logger));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    await container.close();
    const setting = (err as { code?: string }).code === 'EADDRNOTAVAIL' || (err as { code?: string }).code === 'ENOTFOUND' ? 'HOST' : 'PORT';
    throw new ListenError(setting, `${config.host}:${config.port}`, err);
  }
  const { port } = server.address() as AddressInfo;
  const unwatchDatabase = watchDatabaseCommands(database.client, metrics);
  const metricsListener = await startMetricsListener(config, logger, metrics).catch(async (err: unknown) => {
    server.close();
    unwatchDatabase();
    await container.close();
    throw (err as { code?: unknown }).code ? new ListenError('METRICS_LISTEN', config.metricsListen ?? '', err) : err;
  });

  // Expired records, then deployment logs past LOG_RETENTION_DAYS (docs/product.md §10), in batches; a
  // sweep that takes longer than the interval is not overlapped by the next (it starts an interval after).
  const sweep = new PollLoop(
    () =>
      sweepExpired(database.db, repos, container.clock.date())
        .then(async (removed) => removed + (await container.services.deploymentLogs.sweep(container.clock.date())))
        .then((removed) => removed && logger.debug({ removed }, 'expired records swept'))
        .catch((err: unknown) => logger.warn({ err }, 'sweep failed')),
    () => config.sweepIntervalSeconds * 1000,
  );
  sweep.start();

  // Webhook deliveries: every instance polls the queue; leases decide who makes each attempt.
  const webhooks = container.services.webhookDispatcher;
  webhooks.start();
  // docs/product.md §9: every instance queues waiting deployments that are due; claims decide who moves each.
  const scheduler = container.services.deploymentScheduler;
  scheduler.start();

  // What a person starting it needs first: where the dashboard is and what to do next. Then the rest.
  const dashboard = `${config.publicUrl}/dashboard`;
  logger.info({ url: `http://${config.host}:${port}`, dashboard, public_url: config.publicUrl, issuer: config.issuer }, 'slipway listening');
  logger.info(await nextStep(container, dashboard));
  if (metricsExposure(config) === 'off')
    logger.info('/metrics is off (the default): set METRICS_LISTEN (a private address) or METRICS_TOKEN to expose it to Prometheus');

  let closing: Promise<void> | undefined;
  return {
    url: `http://${config.host}:${port}`,
    port,
    container,
    provider,
    server,
    metricsUrl: metricsListener?.url,
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        const swept = sweep.stop();
        // Open event streams end now (their readers resume elsewhere with Last-Event-ID).
        container.services.logFollowers.close();
        const webhooksStopped = webhooks.stop();
        const schedulerStopped = scheduler.stop();
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
        await drained;
        clearTimeout(timer);
        await webhooksStopped;
        await schedulerStopped;
        await swept;
        await metricsListener?.close();
        unwatchDatabase();
        await container.close();
        logger.info('slipway stopped');
      })();
      return closing;
    },
  };
}
