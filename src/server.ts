import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import { createApp } from './app.ts';
import type { Config } from './config/index.ts';
import { httpServerOptions, onClientError } from './http/edge.ts';
import { createMetrics, metrics as operatorMetrics } from './http/metrics.ts';
import { metricsExposure, startMetricsListener, watchDatabaseCommands } from './http/metricsEndpoint.ts';
import type { Logger } from './logger.ts';
import { ensureDashboardClient } from './dashboard/auth.ts';
import { createProvider } from './oauth/provider.ts';
import { sweepExpired } from './repositories/index.ts';
import { openRuntime, type Runtime } from './services/runtime.ts';
import { createSecretBox, readDataKeysSync } from './services/secretBox.ts';
import { SessionService } from './services/sessions.ts';
import { WebhookDispatcher } from './services/webhookDispatcher.ts';
import { onUserAccessRevoked } from './services/users.ts';

export interface RunningServer {
  url: string;
  port: number;
  runtime: Runtime;
  provider: Provider;
  server: http.Server;
  /** The separate /metrics listener's URL, when `metricsListen` is set. */
  metricsUrl: string | undefined;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes the database. */
  close(): Promise<void>;
}

export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const runtime = await openRuntime(config, logger);
  const { database, repos, keys } = runtime;
  let shuttingDown = false;
  const metrics = createMetrics();
  const provider = createProvider({ config, keys, repos, db: database.db, logger });
  await ensureDashboardClient(repos, config);
  const sessions = new SessionService(repos.sessions, repos.users);
  // A user removed through this instance loses their dashboard sessions here at once (the rows are
  // already deleted; this drops the validated-session cache too). Other instances: within 30 s.
  const stopForgettingUsers = onUserAccessRevoked((userId) => {
    sessions.revokeForUser(userId).catch((err: unknown) => logger.warn({ err }, 'could not end the sessions of a removed user'));
  });
  // One per process: values sealed by an instance started after a data-key rotation are opened by
  // re-reading keys/ (at most every few seconds). The API, the dashboard and the webhook sender share it.
  const secretBox = createSecretBox(keys.data, { reload: () => readDataKeysSync(config.keysDir) });
  const app = createApp({ config, logger, db: database.db, repos, provider, metrics, keys, sessions, secretBox, isShuttingDown: () => shuttingDown });

  const server = http.createServer(httpServerOptions(config), app.callback());
  server.keepAliveTimeout = 65_000;
  server.on('clientError', onClientError(logger));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    stopForgettingUsers();
    await runtime.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const unwatchDatabase = watchDatabaseCommands(database.client);
  const metricsListener = await startMetricsListener(config, logger).catch(async (err: unknown) => {
    server.close();
    unwatchDatabase();
    stopForgettingUsers();
    await runtime.close();
    throw err;
  });
  if (metricsExposure(config) === 'off') logger.warn('/metrics is off: set METRICS_LISTEN (a private address) or METRICS_TOKEN to expose it');

  const sweep = setInterval(() => {
    sweepExpired(database.db, repos)
      .then((removed) => removed && logger.debug({ removed }, 'expired records swept'))
      .catch((err: unknown) => logger.warn({ err }, 'sweep failed'));
  }, config.sweepIntervalSeconds * 1000);
  sweep.unref();

  // Webhook deliveries: every instance polls the queue; leases decide who makes each attempt.
  const webhooks = new WebhookDispatcher({
    config,
    logger,
    repos,
    secretBox,
    onAttempt: (outcome, seconds) => operatorMetrics.webhookDelivery(outcome, seconds),
  });
  webhooks.start();

  logger.info({ url: `http://${config.host}:${port}`, public_url: config.publicUrl, issuer: config.issuer }, 'slipway listening');

  let closing: Promise<void> | undefined;
  return {
    url: `http://${config.host}:${port}`,
    port,
    runtime,
    provider,
    server,
    metricsUrl: metricsListener?.url,
    close() {
      closing ??= (async () => {
        shuttingDown = true;
        clearInterval(sweep);
        const webhooksStopped = webhooks.stop();
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
        await drained;
        clearTimeout(timer);
        await webhooksStopped;
        await metricsListener?.close();
        unwatchDatabase();
        stopForgettingUsers();
        await runtime.close();
        logger.info('slipway stopped');
      })();
      return closing;
    },
  };
}
