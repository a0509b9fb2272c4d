import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { inject } from 'vitest';
import type { z } from 'zod';
import { loadConfig, type Config, type ConfigSchema } from '../../src/config/index.ts';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { createLogger } from '../../src/logger.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { ListenError } from '../../src/startupFailure.ts';
import { testClock, type TestClock } from './clock.ts';
import { realWaits } from './realWaits.ts';
import { tempDir } from './tempDirs.ts';

export interface TestServer {
  /** Base URL, `http://127.0.0.1:PORT` (also PUBLIC_URL). */
  url: string;
  issuer: string;
  config: Config;
  running: RunningServer;
  /** The server's own /metrics listener (`metricsListen`), when it has one. */
  metricsUrl: string | undefined;
  /** Every log line the server wrote, as text (JSON lines). */
  logs: string[];
  repos: RunningServer['container']['repos'];
  /** The clock the server decides by (a restart and startAnotherInstance share it): move it instead of waiting. */
  clock: TestClock;
  /** The server's own services (src/services/index.ts). */
  services: RunningServer['container']['services'];
  /** Stops the server; the database and keys stay for a restart. */
  stop(): Promise<void>;
  /** Starts a new server process-equivalent on the same port, database and keys. */
  restart(): Promise<TestServer>;
}

export interface TestServerOptions {
  /** Reuse a database (for restart tests); default: a fresh one for this server. */
  dbName?: string;
  keysDir?: string;
  port?: number;
  /** Config values that win over the harness's own (e.g. `mongodbUri` for a database of the test's own). */
  overrides?: Partial<z.input<typeof ConfigSchema>>;
  /** The clock (default a new testClock()); instances of one deployment share one. */
  clock?: TestClock;
  /** How many listens failed before this one because the port was taken (startTestServer's own). */
  listenAttempt?: number;
}

/** The real app on a real loopback port, against the run's database, in a database of its own. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const port = options.port ?? (await freePort());
  const dbName = options.dbName ?? `t_${randomBytes(6).toString('hex')}`;
  const keysDir = options.keysDir ?? tempDir('slipway-test-keys-');
  const clock = options.clock ?? testClock();
  const publicUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    env: {},
    overrides: { port, host: '127.0.0.1', publicUrl, mongodbUri: inject('mongodbUri'), mongodbDb: dbName, keysDir, logLevel: 'info', shutdownGraceMs: 2000, metricsListen: '127.0.0.1:0', ...options.overrides },
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      const lines = chunk.toString().split('\n').filter(Boolean);
      logs.push(...lines);
      // TEST_LOGS=1 echoes the server's log to the terminal while debugging a test.
      if (process.env.TEST_LOGS) for (const line of lines) process.stderr.write(`${line}\n`);
      cb();
    },
  });
  const logger = createLogger({ level: 'info', destination: sink });
  let running: RunningServer;
  try {
    running = await startServer(config, logger, { clock });
  } catch (err) {
    // Another process took the port between freePort() and the listen: a port of our choosing is
    // chosen again; the port of a restart is the same port, tried again a moment later.
    const taken = err instanceof ListenError && (err.cause as { code?: string } | undefined)?.code === 'EADDRINUSE';
    const attempt = (options.listenAttempt ?? 0) + 1;
    if (!taken || attempt >= 10) throw err;
    if (options.port !== undefined) await realWaits.portTaken(200);
    return await startTestServer({ ...options, dbName, keysDir, clock, listenAttempt: attempt });
  }
  const server: TestServer = {
    url: publicUrl,
    issuer: config.issuer,
    config,
    running,
    metricsUrl: running.metricsUrl,
    logs,
    clock,
    repos: running.container.repos,
    services: running.container.services,
    stop: () => running.close(),
    async restart() {
      await running.close();
      return await startTestServer({ ...options, dbName, keysDir, port, clock, listenAttempt: 0 });
    },
  };
  return server;
}

/**
 * Another instance beside `first`, as a second process behind the same load balancer would be: the same
 * database, keys, PUBLIC_URL (so the issuer, token audience and DPoP `htu` agree) and clock, on a port of
 * its own, with `overrides` of its own. The caller stops it.
 */
export async function startAnotherInstance(first: TestServer, overrides: TestServerOptions['overrides'] = {}): Promise<TestServer> {
  return await startTestServer({ dbName: first.config.mongodbDb, keysDir: first.config.keysDir, clock: first.clock, overrides: { ...overrides, publicUrl: first.config.publicUrl } });
}
