import { afterAll, beforeAll } from 'vitest';
import type { AppError } from '../../src/errors.ts';
import { openTestDatabase, type TestDatabase } from './database.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './server.ts';

/*
 * Shared scaffolding for test files. Each `use…` function registers beforeAll/afterAll hooks in the
 * file (or the describe block) that calls it and returns an object that its beforeAll fills in: read it
 * in tests, helpers and later hooks, never at module load. beforeAll hooks run in the order they are
 * registered, so a file's own beforeAll written after the call already sees it filled in.
 */

/** A database of its own for the file (see openTestDatabase), dropped after the file's tests. */
export function useTestDatabase(): TestDatabase {
  const database = {} as TestDatabase;
  beforeAll(async () => {
    Object.assign(database, await openTestDatabase());
  });
  afterAll(async () => {
    await database.close?.();
  });
  return database;
}

/** The real app on a loopback port with a database of its own (see startTestServer), stopped after the file's tests. */
export function useTestServer(options: TestServerOptions = {}): TestServer {
  const server = {} as TestServer;
  beforeAll(async () => {
    Object.assign(server, await startTestServer(options));
  });
  afterAll(async () => {
    await server.stop?.();
  });
  return server;
}

/** The error `promise` rejected with (a service's AppError); fails if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a rejection');
}
