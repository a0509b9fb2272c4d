import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MongoClient } from 'mongodb';
import type { Config } from '../config/index.ts';
import { sha256Hex } from '../lib/hash.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from './metrics.ts';

/**
 * Where /metrics is served, chosen by settings, so that it is never open on the public port:
 * - `metricsListen` set: on that address only (a private interface or loopback for a local agent);
 * - otherwise `metricsToken` set: on the main port, to `Authorization: Bearer <metricsToken>` only;
 * - neither: nowhere (404), and a warning at start.
 * With both set, the separate listener also asks for the token.
 */
export type MetricsExposure = 'listener' | 'token' | 'off';

export function metricsExposure(config: Pick<Config, 'metricsListen' | 'metricsToken'>): MetricsExposure {
  if (config.metricsListen) return 'listener';
  return config.metricsToken ? 'token' : 'off';
}

/** True when the request may read /metrics (no token configured, or the right bearer token). */
export function metricsAuthorized(config: Pick<Config, 'metricsToken'>, authorization: string | undefined): boolean {
  if (!config.metricsToken) return true;
  const match = /^Bearer ([^\s]+)$/i.exec(authorization ?? '');
  if (!match) return false;
  // Hashes have the same length whatever was presented, so the comparison leaks nothing.
  return timingSafeEqual(Buffer.from(sha256Hex(match[1]!)), Buffer.from(sha256Hex(config.metricsToken)));
}

export async function metricsText(metrics: Pick<Metrics, 'registry'>): Promise<{ contentType: string; body: string }> {
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}

/** The separate /metrics listener (`metricsListen`), or undefined when metrics are served otherwise. */
export async function startMetricsListener(config: Config, logger: Logger, metrics: Metrics): Promise<{ url: string; close(): Promise<void> } | undefined> {
  if (!config.metricsListen) return undefined;
  const separator = config.metricsListen.lastIndexOf(':');
  const host = config.metricsListen.slice(0, separator).replace(/^\[(.*)\]$/, '$1');
  const port = Number(config.metricsListen.slice(separator + 1));
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (!metricsAuthorized(config, req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
      return;
    }
    metricsText(metrics).then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
      (err: unknown) => {
        logger.error({ err }, 'could not collect metrics');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('error\n');
      },
    );
  });
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`;
  logger.info({ url }, 'metrics listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Database latency from the driver's command monitoring (the client needs `monitorCommands: true`). */
export function watchDatabaseCommands(client: MongoClient, metrics: Pick<Metrics, 'dbCommand'>): () => void {
  const succeeded = (e: { commandName: string; duration: number }) => metrics.dbCommand(e.commandName, e.duration / 1000, false);
  const failed = (e: { commandName: string; duration: number }) => metrics.dbCommand(e.commandName, e.duration / 1000, true);
  client.on('commandSucceeded', succeeded);
  client.on('commandFailed', failed);
  return () => {
    client.off('commandSucceeded', succeeded);
    client.off('commandFailed', failed);
  };
}
