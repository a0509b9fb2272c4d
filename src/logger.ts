import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs; pretty only on an interactive terminal. Credentials are redacted by path, and no
 * code path logs a request body, so passwords, tokens and keys never reach the output.
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
      return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
    } catch {
      // pino-pretty is a development dependency; fall through to JSON when it is absent.
    }
  }
  return pino(options);
}
