import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AppError } from '../../src/errors.ts';
import { Api, type ApiResponse } from './api.ts';
import { launchBrowser } from './browser.ts';
import { openTestDatabase, type TestDatabase } from './database.ts';
import { CookieJar } from './oauthDriver.ts';
import { startCallbackServer, type CallbackServer } from './oauthFlow.ts';
import { startAnotherInstance, startTestServer, type TestServer, type TestServerOptions } from './server.ts';
import { Tokens, type TestUser } from './tokens.ts';

/*
 * Shared scaffolding for test files. Each `use…` function registers beforeAll/afterAll hooks in the
 * file (or the describe block) that calls it and returns an object that its beforeAll fills in: read it
 * in tests, helpers and later hooks, never at module load. beforeAll hooks run in the order they are
 * registered, so a file's own beforeAll written after the call already sees it filled in, e.g.
 *
 *   const env = useApiServer();
 *   let api: Api, token: string;
 *   beforeAll(() => ({ api, adminToken: token } = env));
 */

/**
 * An object `open` makes in beforeAll and `close` ends in afterAll (if it was made). The object returned
 * here gets the opened one's properties, so it must be a plain object whose methods do not need `this`.
 */
function useOpened<T extends object>(open: () => Promise<T>, close: (opened: T) => Promise<void>): T {
  const opened = {} as T;
  let ready = false;
  beforeAll(async () => {
    Object.assign(opened, await open());
    ready = true;
  });
  afterAll(async () => {
    if (ready) await close(opened);
  });
  return opened;
}

/** A database of its own for the file (see openTestDatabase), dropped after the file's tests. */
export function useTestDatabase(): TestDatabase {
  return useOpened(openTestDatabase, (database) => database.close());
}

/** The real app on a loopback port with a database of its own (see startTestServer), stopped after the file's tests. */
export function useTestServer(options: TestServerOptions = {}): TestServer {
  return useOpened(() => startTestServer(options), (server) => server.stop());
}

export interface TwoInstances {
  first: TestServer;
  /** Beside `first` (startAnotherInstance): the same database, keys, PUBLIC_URL and clock. */
  second: TestServer;
  /** Both, first first: requests spread over them with `both[i % 2]`. */
  both: TestServer[];
}

/**
 * One deployment of two instances, as behind a load balancer, with the same `options` (overrides
 * included), started before the file's (or the describe block's) tests and both stopped after them.
 */
export function useTwoInstances(options: TestServerOptions = {}): TwoInstances {
  return useOpened(
    async () => {
      const first = await startTestServer(options);
      try {
        const second = await startAnotherInstance(first, options.overrides);
        return { first, second, both: [first, second] };
      } catch (err) {
        await first.stop();
        throw err;
      }
    },
    async ({ first, second }) => {
      await Promise.all([second.stop(), first.stop()]);
    },
  );
}

/** What the token endpoint's races run on (see useTokenRaceInstances). */
export interface TokenRaceInstances extends TwoInstances {
  tokens: Tokens;
  owner: TestUser;
  /** One browser's cookies: its session is reused by every authorization of the file. */
  jar: CookieJar;
}

/**
 * Two instances of one deployment for the token endpoint's races: its budgets lifted (every round's
 * losers are failures from one source), a revocation made on one instance seen by the other within
 * 0.2 s, the webhook dispatcher quiet, and `overrides` on top; a Tokens helper on the first, its owner,
 * and a cookie jar.
 */
export function useTokenRaceInstances(overrides: TestServerOptions['overrides'] = {}): TokenRaceInstances {
  const two = useTwoInstances({
    overrides: {
      tokenRateLimitPerMinute: 1_000_000,
      tokenFailuresPerSourcePerMinute: 1_000_000,
      tokenFailuresPerClientAndSourcePerMinute: 1_000_000,
      revocationRefreshSeconds: 0.2,
      webhookPollIntervalMs: 60_000,
      ...overrides,
    },
  });
  const opened = two as TokenRaceInstances;
  beforeAll(async () => {
    opened.tokens = new Tokens(two.first);
    opened.owner = await opened.tokens.user('owner');
    opened.jar = new CookieJar();
  }, 120_000);
  return opened;
}

export interface BrowserServer {
  server: TestServer;
  /** Headless Chromium (see launchBrowser). */
  browser: Browser;
}

/** useTestServer and a browser, started side by side; both closed after the file's tests. */
export function useBrowserServer(options: TestServerOptions = {}): BrowserServer {
  return useOpened(
    async () => {
      const [server, browser] = await Promise.all([startTestServer(options), launchBrowser()]);
      return { server, browser };
    },
    async ({ server, browser }) => {
      await Promise.all([browser.close(), server.stop()]);
    },
  );
}

/** A client application's redirect endpoint (see startCallbackServer), closed after the file's tests. */
export function useCallbackServer(): CallbackServer {
  return useOpened(startCallbackServer, (callback) => callback.close());
}

export interface ApiServer {
  server: TestServer;
  /** Checks every response against the server's OpenAPI document (see Api). */
  api: Api;
  tokens: Tokens;
  /** The owner of a fresh account. */
  owner: TestUser;
  /** The owner's access token with the admin scope; '' with `adminToken: false`. */
  adminToken: string;
}

export interface ApiServerOptions extends TestServerOptions {
  /** Sign the owner in for `adminToken` (default true); false for files that must start with no grant. */
  adminToken?: boolean;
}

/** useTestServer plus what a /v1 test needs: the checking API client, token maker, an owner and their admin token. */
export function useApiServer(options: ApiServerOptions = {}): ApiServer {
  const { adminToken = true, ...serverOptions } = options;
  const env = { server: useTestServer(serverOptions), adminToken: '' } as ApiServer;
  beforeAll(async () => {
    env.api = await Api.connect(env.server.url);
    env.tokens = new Tokens(env.server);
    env.owner = await env.tokens.user('owner');
    if (adminToken) env.adminToken = await env.tokens.accessToken(env.owner, 'admin');
  });
  return env;
}

let projects = 0;

/** POST /v1/projects as `token` with a unique name unless `overrides` has one; must answer 201. Returns the project. */
export async function createProject(api: Api, token: string, overrides: Record<string, unknown> = {}): Promise<ApiResponse['body']> {
  const res = await api.post('/v1/projects', { token, body: { name: `project-${++projects}-${Date.now()}`, ...overrides } });
  expect(res.status).toBe(201);
  return res.body;
}

/** The response is the API's error `code` with `status` (the body is shown if not). */
export function expectRefused(res: ApiResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
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
