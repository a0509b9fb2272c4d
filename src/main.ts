import { ConfigError, loadConfig } from './config/index.ts';
import { EmbeddedDatabaseUnavailable } from './db/embeddedFerretdb.ts';
import { createLogger } from './logger.ts';
import { startServer } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
const logger = createLogger({ level: config.logLevel });

/**
 * Ends the process once nothing is pending: set the exit code and let the process end by itself; the
 * timer only covers a handle someone forgot to close. The log's buffered lines are written at exit
 * either way (createLogger).
 */
function exitAfterLogs(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2000).unref();
}

try {
  const running = await startServer(config, logger);
  let signals = 0;
  const stop = (signal: string) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    running.close().then(
      () => exitAfterLogs(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        exitAfterLogs(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  if (err instanceof EmbeddedDatabaseUnavailable) {
    console.error(err.message);
    process.exit(3);
  }
  logger.fatal({ err }, 'slipway failed to start');
  exitAfterLogs(1);
}
