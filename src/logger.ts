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
