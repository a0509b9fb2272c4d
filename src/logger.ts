import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs; pretty only on an interactive terminal. Credentials are redacted by path, and no
 * code path logs a request body, so passwords, tokens and keys never reach the output.
 *
 * Writing never blocks a request: JSON lines go to stdout through an asynchronous destination (lines
 * logged while a write is in flight are buffered and sent with the next one), and the pretty output runs
 * in pino's transport worker thread. What is still buffered when the process exits is written
 * synchronously at exit (pino registers that flush for both), so `process.exit()` loses no line.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.client_secret',
  '*.refresh_token',
  '*.access_token',
  '*.key',
  '*.secret',
  '*.token',
];

export interface LoggerOptions {
  level: string;
  /** Where to write; defaults to stdout. Tests pass a stream to capture output. */
  destination?: NodeJS.WritableStream;
  pretty?: boolean;
}

export function createLogger({ level, destination, pretty }: LoggerOptions): Logger {
  const options = {
    level,
    base: { service: 'slipway' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (destination) return pino(options, destination as pino.DestinationStream);
  if (pretty ?? (process.stdout.isTTY && process.env.NODE_ENV !== 'production')) {
    try {
      return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid,hostname,service' } } });
    } catch {
      // pino-pretty is a development dependency; fall through to JSON when it is absent.
    }
  }
  return pino(options, pino.destination({ dest: 1, sync: false }));
}

/**
 * The logger of the access line (one per request: request id, method, path, status, duration): the same
 * output, level and format as `logger`, without the redaction pass, which finds nothing in those fixed
 * fields and costs as much as writing the line. Nothing else may log through it.
 */
export function accessLineLogger(logger: Logger): Logger {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as pino.DestinationStream | undefined;
  if (!stream) return logger;
  const access = pino({ level: logger.level, base: { service: 'slipway' }, timestamp: pino.stdTimeFunctions.isoTime }, stream);
  return access;
}
