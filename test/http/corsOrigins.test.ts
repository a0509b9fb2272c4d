import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CorsOrigins } from '../../src/http/cors.ts';
import { createChanges } from '../../src/lib/changes.ts';
import { createLogger } from '../../src/logger.ts';
import { race } from '../support/concurrency.ts';

/**
 * The CORS allow-list's cache (src/http/cors.ts), with a stand-in for the read of every registered
 * client (the real read is exercised through the API in test/v1/cors.test.ts). A read this process
 * caused (a client registered or deleted here) is awaited; a read because the set is old is not.
 */
const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

function source(initial: string[]) {
  let uris = initial;
  let reads = 0;
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  return {
    set: (next: string[]) => void (uris = next),
    /** Holds the next reads until `release()`. */
    hold: () => void (gate = new Promise<void>((resolve) => (open = resolve))),
    release: () => open(),
    reads: () => reads,
    load: async () => {
      reads += 1;
      const answer = uris;
      await gate;
      return answer;
    },
  };
}

describe('the allow-list of registered clients’ origins', () => {
  it('is read before the first answer, and at once after a change made here', async () => {
    const clients = source(['https://a.example/cb']);
    const changes = createChanges();
    const origins = new CorsOrigins({ configured: [], loadRedirectUris: clients.load, changes, refreshSeconds: 3600, logger });
    expect(await origins.allows('https://a.example')).toBe(true);
    expect(await origins.allows('https://b.example')).toBe(false);
    expect(clients.reads()).toBe(1);
    clients.set(['https://a.example/cb', 'https://b.example/cb']);
    changes.emit('oauthClientsChanged');
    expect(await origins.allows('https://b.example')).toBe(true);
    expect(clients.reads()).toBe(2);
  });

  it('once old, answers from what it has while one read runs in the background; the next answers see it', async () => {
    const clients = source(['https://a.example/cb']);
    const origins = new CorsOrigins({ configured: [], loadRedirectUris: clients.load, changes: createChanges(), refreshSeconds: 0, logger });
    expect(await origins.allows('https://a.example')).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    clients.set(['https://b.example/cb']);
    clients.hold();
    // The read is held: these answers do not wait for it, and 20 of them start one read only.
    const answers = await race(20, () => origins.allows('https://a.example'));
    expect(answers.every(Boolean)).toBe(true);
    expect(clients.reads()).toBe(2);
    clients.release();
    await new Promise((r) => setTimeout(r, 5));
    expect(await origins.allows('https://b.example')).toBe(true);
    expect(await origins.allows('https://a.example')).toBe(false);
  });
});
