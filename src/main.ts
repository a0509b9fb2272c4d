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
 * Ends the process once the log is written. pino writes to stdout asynchronously; process.exit() while a
 * write is in flight puts the last lines out of order or loses them. So: set the exit code and let the
 * process end by itself when nothing is pending; the timer only covers a handle someone forgot to close.
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
