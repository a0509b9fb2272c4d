import type { Config } from './config/index.ts';
import { createAuthenticators } from './auth/index.ts';
import type { Authenticator } from './auth/authenticators.ts';
import { openDatabase } from './db/runtime.ts';
import type { Database } from './db/mongo.ts';
import { loadOrCreateKeys, type KeyMaterial } from './keys/keystore.ts';
import { createSecretBox, readDataKeysSync, type SecretBox } from './keys/secretBox.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { createChanges, type Changes } from './lib/changes.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import type { Logger } from './logger.ts';
import { createRepositories, migrate, type Repositories } from './repositories/index.ts';
import { checkDataKeys } from './services/dataKeyCheck.ts';
import { createServices, type Services } from './services/index.ts';
import type { SessionService } from './services/sessions.ts';

/**
 * The composition root: everything the process is made of, built once, here and nowhere else, and
 * handed side by side to the /v1 API, the dashboard and the authorization server (src/app.ts) and to
 * the admin CLI (src/cli/program.ts).
 */
export interface Container {
  config: Config;
  logger: Logger;
  database: Database;
  repos: Repositories;
  keys: KeyMaterial;
  /** Seals and opens secrets at rest (configuration values, webhook signing secrets). */
  secretBox: SecretBox;
  /** What this process changed and what listens (see lib/changes.ts). */
  changes: Changes;
  /** What decides by time reads it here (src/lib/clock.ts): the system clock, or a test's. */
  clock: Clock;
  /** The process's one metrics handle: served at /metrics, reported to by requests, logins, tokens, the database driver and webhooks. */
  metrics: Metrics;
  services: Services;
  /** Dashboard session tokens (cookie or Bearer `slws_…`). */
  sessions: SessionService;
  /** Every /v1 credential: OAuth access tokens, API keys, dashboard sessions. */
  authenticators: Authenticator[];
  /** Creates or updates every index and re-keys old records (idempotent; `slipway db migrate`). */
  migrate(): Promise<{ collections: string[] }>;
  /** Closes the database (and stops the embedded one when this process started it). */
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Create indexes and re-key old records first (default true; `slipway db migrate` runs it itself). */
  migrate?: boolean;
  /** The clock (default the system clock); tests pass one they move (docs/ARCHITECTURE.md, "Time"). */
  clock?: Clock;
}

export async function openContainer(config: Config, logger: Logger, options: ContainerOptions = {}): Promise<Container> {
  const database = await openDatabase(config, logger);
  try {
    const changes = createChanges();
    const clock = options.clock ?? systemClock;
    const repos = createRepositories(database.db, { cacheMs: config.principalCacheSeconds * 1000, changes, now: () => clock.now() });
    const keys = await loadOrCreateKeys(config.keysDir);
    if (keys.created.length) logger.info({ files: keys.created, dir: config.keysDir }, 'generated key material');
    if (options.migrate !== false) await migrate(database.db, repos, { once: true });
    await checkDataKeys(repos, keys, { keysDir: config.keysDir, acceptLost: config.acceptLostDataKeys, logger });
    // Values sealed by an instance started after a data-key rotation are opened by re-reading keys/
    // (at most every few seconds).
    const secretBox = createSecretBox(keys.data, { reload: () => readDataKeysSync(config.keysDir) });
    const metrics = createMetrics();
    const services = createServices({ repos, secretBox, changes, config, logger, metrics, clock });
    const { sessions } = services;
    // A user removed, demoted or promoted, or their password changed, through this process: the service
    // has changed the rows; this drops the validated sessions cached here too, so the next request reads
    // the user's role and their remaining sessions. Other instances: within the 30 s session cache.
    changes.on('userAccessRevoked', (userId) => sessions.forgetUser(userId));
    const authenticators = createAuthenticators({ config, keys, repos, sessions, changes, clock });
    return {
      config,
      logger,
      database,
      repos,
      keys,
      secretBox,
      changes,
      clock,
      metrics,
      services,
      sessions,
      authenticators,
      migrate: () => migrate(database.db, repos),
      async close() {
        changes.removeAllListeners();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}
