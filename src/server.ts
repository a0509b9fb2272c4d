import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import { createApp } from './app.ts';
import type { Config } from './config/index.ts';
import { httpServerOptions, onClientError } from './http/edge.ts';
import { metricsExposure, startMetricsListener, watchDatabaseCommands } from './http/metricsEndpoint.ts';
import type { Logger } from './logger.ts';
import { createProvider } from './oauth/provider/index.ts';
import { sweepExpired } from './repositories/index.ts';
import { openContainer, type Container } from './container.ts';

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

export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const container = await openContainer(config, logger);
  const { database, repos, keys, metrics } = container;
  let shuttingDown = false;
  const provider = createProvider({ config, keys, repos, db: database.db, logger, metrics });
  await container.services.dashboardClient.ensureRegistered();
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
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const unwatchDatabase = watchDatabaseCommands(database.client, metrics);
  const metricsListener = await startMetricsListener(config, logger, metrics).catch(async (err: unknown) => {
    server.close();
    unwatchDatabase();
    await container.close();
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
  const webhooks = container.services.webhookDispatcher;
  webhooks.start();

  logger.info({ url: `http://${config.host}:${port}`, public_url: config.publicUrl, issuer: config.issuer }, 'slipway listening');

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
            await container.close();
        logger.info('slipway stopped');
      })();
      return closing;
    },
  };
}
