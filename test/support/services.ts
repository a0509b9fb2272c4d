import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/index.ts';
import { createMetrics } from '../../src/http/metrics.ts';
import { createSecretBox, type SecretBox } from '../../src/keys/secretBox.ts';
import { createChanges, type Changes } from '../../src/lib/changes.ts';
import { systemClock, type Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/logger.ts';
import type { Repositories } from '../../src/repositories/index.ts';
import { EventLog } from '../../src/services/eventLog.ts';
import { createServices, type Services } from '../../src/services/index.ts';
import { WebhookFanOut } from '../../src/services/webhookFanOut.ts';

const UNLIMITED = 1_000_000;

/**
 * Every service built the one way the process builds them (createServices), on the given repositories:
 * for tests and benchmark seeds that call services without a server. Quotas are as high as configuration
 * allows, webhook targets may be loopback, nothing is logged.
 */
export function buildServices(repos: Repositories, options: { secretBox?: SecretBox; changes?: Changes; clock?: Clock } = {}): Services {
  const config = loadConfig({
    env: {},
    overrides: {
      quotaProjects: UNLIMITED,
      quotaOauthClients: UNLIMITED,
      quotaApiKeys: UNLIMITED,
      quotaWebhooks: UNLIMITED,
      quotaUsers: UNLIMITED,
      webhookAllowLoopback: true,
    },
  });
  const secretBox = options.secretBox ?? createSecretBox({ current: 'dk_test', keys: { dk_test: randomBytes(32).toString('base64url') } });
  const changes = options.changes ?? createChanges();
  return createServices({ repos, secretBox, changes, config, logger: createLogger({ level: 'silent' }), metrics: createMetrics(), clock: options.clock ?? systemClock });
}

/** The audit log as the services write to it, for tests that record events directly. */
export function buildEventLog(repos: Repositories): EventLog {
  return new EventLog({ events: repos.events, fanOut: new WebhookFanOut(repos) });
}
