import { describe, expect, it } from 'vitest';
import { runNode } from '../support/processes.ts';

/**
 * The server's log writes to stdout without blocking (an asynchronous destination), and whatever is
 * still buffered when the process exits — even by process.exit() straight after a burst — is written.
 */
describe('the log', () => {
  it('is asynchronous and loses no line when the process exits at once', async () => {
    const script = `
      import pino from 'pino';
      import { createLogger } from './src/logger.ts';
      const logger = createLogger({ level: 'info', pretty: false });
      const stream = logger[pino.symbols.streamSym];
      process.stderr.write(JSON.stringify({ sync: stream.sync }) + '\\n');
      for (let i = 0; i < 20000; i += 1) logger.info({ i }, 'burst line ' + 'x'.repeat(100));
      process.exit(7);
    `;
    const result = await runNode(['--input-type=module', '-e', script], {}, 30_000);
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stderr.trim().split('\n')[0]!)).toEqual({ sync: false });
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(20000);
    const numbers = lines.map((l) => (JSON.parse(l) as { i: number }).i);
    expect(numbers[0]).toBe(0);
    expect(numbers.at(-1)).toBe(19999);
    expect(numbers.every((n, index) => n === index)).toBe(true);
  });
});
