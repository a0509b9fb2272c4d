import { loadConfig } from './config/index.ts';
import { createLogger } from './logger.ts';
import { startServer } from './server.ts';
import { debugRequested, describeStartupFailure } from './startupFailure.ts';

/** A one-line message is prefixed with the program's name; a list (every configuration problem) stands as it is. */
const oneMessage = (message: string) => (message.includes('\n') ? message : `slipway: ${message}`);

/**
 * A start that fails says so in one line on stderr: what, which setting, what to do, and exits with the
 * class's own code (src/startupFailure.ts, docs/OPERATIONS.md "Exit codes"). The stack only on request.
 */
function failStart(err: unknown, databaseUri: string | undefined, logLevel?: string): never {
  const failure = describeStartupFailure(err, databaseUri);
  if (debugRequested(process.env, logLevel)) console.error(err);
  console.error(oneMessage(failure.message));
  process.exit(failure.exit);
}

let config;
try {
  config = loadConfig();
} catch (err) {
  failStart(err, process.env.MONGODB_URI);
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
  const failure = describeStartupFailure(err, config.mongodbUri);
  // A log collector sees the failure too (one line, its class and setting; the stack only on request).
  if (!process.stdout.isTTY)
    logger.fatal({ code: failure.code, setting: failure.setting, exit_code: failure.exit, ...(debugRequested(process.env, config.logLevel) ? { err } : {}) }, 'slipway failed to start');
  if (debugRequested(process.env, config.logLevel)) console.error(err);
  console.error(oneMessage(failure.message));
  exitAfterLogs(failure.exit);
}
