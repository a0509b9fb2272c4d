import { ConnectionError, RequestAbortedError, SlipwayError, TimeoutError, errorFromResponse } from './errors.js';

export { API_VERSION, VERSION } from './generated/meta.js';

/** Where an access token comes from: a fixed one, an OAuth session that refreshes, client credentials… */
export interface TokenProvider {
  /** A current access token (refreshed first when the provider knows it has expired). */
  getAccessToken(signal?: AbortSignal): Promise<string>;
  /**
   * Called once when the server answered 401 `invalid_token` although the token looked current
   * (revoked, rotated keys, clock skew): returns a new token, or throws.
   */
  refresh?(signal?: AbortSignal, rejectedToken?: string): Promise<string>;
  /**
   * Sends one request with `token` when it needs more than `Authorization: Bearer`: a DPoP-bound
   * token (`Authorization: DPoP` and a fresh proof, retried once with the server's nonce). Without
   * it the client sends `Authorization: Bearer <token>` itself.
   */
  send?(token: string, request: AuthorizedRequest): Promise<Response>;
}

/** One HTTP request for `TokenProvider.send`: everything but the credentials. */
export interface AuthorizedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
  /** The client's `fetch`. */
  fetch: typeof fetch;
}

export interface ClientOptions {
  /**
   * Where Slipway runs, e.g. `https://slipway.example.com` (without `/v1`). In Node.js it may be left out
   * when the environment variable `SLIPWAY_URL` is set (see baseUrlFromEnvironment).
   */
  baseUrl?: string;
  /** A project API key (`slw_…`), e.g. for CI. */
  apiKey?: string;
  /** A fixed OAuth access token (or dashboard session token). */
  accessToken?: string;
  /** Tokens that change over time, e.g. `oauth.session(tokens)` (refreshes automatically). */
  auth?: TokenProvider;
  /** Retries after 429, 503, timeouts and network errors; 0 turns retrying off. Default 2. */
  maxRetries?: number;
  /** Milliseconds each attempt may take before it is abandoned (a `timeout` error, retried). Default 60 000. */
  timeout?: number;
  /** First backoff delay in ms (doubled each retry, with full jitter). Default 500. */
  initialRetryDelay?: number;
  /** Longest backoff delay in ms. Default 8 000. */
  maxRetryDelay?: number;
  /** A 429/503 whose `Retry-After` asks for longer than this many seconds is not retried. Default 60. */
  maxRetryAfter?: number;
  /**
   * How the `Idempotency-Key` sent with every create (POST) is made, so a retry never creates twice:
   * a function returning a fresh key, or `false` to send none. Default: a random UUID per call.
   */
  idempotencyKey?: false | (() => string);
  /** Headers sent with every request (a call's own `headers` win), e.g. `{ 'user-agent': 'deploy-bot/1.4' }`. */
  headers?: Record<string, string>;
  /**
   * The `fetch` every request goes through (default: the global one at call time), e.g. to add a
   * proxy agent, log, or test. It gets `(url, init)` with `init.signal`; what it throws becomes `network_error`.
   */
  fetch?: typeof fetch;
}

/** Per-call options: every method takes them as its last argument (and `slipway.request` as its second). */
export interface RequestOptions {
  /**
   * The `Idempotency-Key` to send, instead of a generated one. Give the same key again (from any
   * process, e.g. after a restart) to retry a create: the server answers with what it created the
   * first time, and never creates twice.
   */
  idempotencyKey?: string;
  /** Overrides the client's `timeout`: milliseconds each attempt may take (`timeout` error after it). */
  timeout?: number;
  /** Headers for this call, over the client's `headers`. */
  headers?: Record<string, string>;
  /** Overrides the client's `maxRetries` (0: one attempt). */
  maxRetries?: number;
  /** Ends the call, its retries and backoff waits (`request_aborted` error; the signal's reason is its `cause`). */
  signal?: AbortSignal;
}

/** A request to any path under the base URL (`slipway.request`): for operations this SDK does not wrap yet. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path under the base URL, with its ids already in it, e.g. `/v1/projects/proj_123`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  body?: unknown;
  /** A POST that accepts `Idempotency-Key` (a create): it gets a generated key, so its retries are safe. */
  idempotent?: boolean;
}

function randomKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const bytes = c.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * The error for a call the caller's signal ended: `timeout` when the signal says so
 * (`AbortSignal.timeout(ms)`), else `request_aborted`; the signal's reason is the `cause`.
 */
export function abortedError(signal: AbortSignal, what: string): SlipwayError {
  const reason = abortReason(signal);
  if ((reason as { name?: unknown } | null)?.name === 'TimeoutError') {
    return new TimeoutError({ code: 'timeout', status: null, message: `The caller's signal timed out: ${what}`, cause: reason });
  }
  return new RequestAbortedError({ code: 'request_aborted', status: null, message: `The caller aborted the request: ${what}`, cause: reason });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

type Environment = Record<string, string | undefined>;
let baseUrlNoticeGiven = false;

/**
 * Where Slipway runs, from the environment (Node.js; undefined in a browser): `SLIPWAY_URL`, the one
 * name all three Slipway SDKs read. `SLIPWAY_BASE_URL` (the name the Python SDK read up to 0.2) still
 * works, with a deprecation warning once per process (`DeprecationWarning`, code
 * `SLIPWAY_DEPRECATED_BASE_URL`); it stops working in 0.4.0 (CHANGELOG.md, "Deprecations").
 */
export function baseUrlFromEnvironment(env: Environment | undefined = (globalThis as { process?: { env?: Environment } }).process?.env): string | undefined {
  if (!env) return undefined;
  if (env.SLIPWAY_URL) return env.SLIPWAY_URL;
  const deprecated = env.SLIPWAY_BASE_URL;
  if (!deprecated) return undefined;
  if (!baseUrlNoticeGiven) {
    baseUrlNoticeGiven = true;
    const message = 'SLIPWAY_BASE_URL is deprecated and stops working in @slipway/sdk 0.4.0: set SLIPWAY_URL instead.';
    const proc = (globalThis as { process?: { emitWarning?: (message: string, options: { type: string; code: string }) => void } }).process;
    if (proc?.emitWarning) proc.emitWarning(message, { type: 'DeprecationWarning', code: 'SLIPWAY_DEPRECATED_BASE_URL' });
    else console.error(message);
  }
  return deprecated;
}

/** The HTTP layer: credentials, JSON, typed errors, retries with backoff, idempotency keys, timeouts. */
export class ApiClient {
  readonly baseUrl: string;
  readonly #options: ClientOptions;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    const baseUrl = options?.baseUrl || baseUrlFromEnvironment();
    if (!baseUrl) throw new TypeError('baseUrl is required (or set SLIPWAY_URL)');
    const credentials = [options.apiKey, options.accessToken, options.auth].filter((c) => c !== undefined);
    if (credentials.length > 1) throw new TypeError('pass one of apiKey, accessToken or auth');
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#options = options;
    this.#fetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  }

  async #token(signal?: AbortSignal): Promise<string | undefined> {
    const o = this.#options;
    if (o.apiKey !== undefined) return o.apiKey;
    if (o.accessToken !== undefined) return o.accessToken;
    return await o.auth?.getAccessToken(signal);
  }

  #backoff(retry: number): number {
    const initial = this.#options.initialRetryDelay ?? 500;
    const max = this.#options.maxRetryDelay ?? 8000;
    const ceiling = Math.min(max, initial * 2 ** retry);
    // Full jitter, but never less than half the ceiling, so retries do not arrive in lockstep.
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  url(path: string, query?: RequestSpec['query']): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    return url.href;
  }

  /**
   * Opens a GET whose body is read as it arrives (a Server-Sent Events stream): the client's
   * credentials (Bearer, API key, or a DPoP proof from the token provider), one token refresh after
   * 401 `invalid_token`, no retries and no timeout (the caller reconnects). Resolves with the
   * response once its status is 2xx; any other answer is the SlipwayError it describes (with
   * `retryAfter`), a failure to connect is `network_error`, the caller's abort `request_aborted`.
   */
  async openStream(path: string, query: RequestSpec['query'], headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
    const o = this.#options;
    const what = `GET ${path}`;
    const url = this.url(path, query);
    for (let refreshed = false; ; refreshed = true) {
      if (signal?.aborted) throw abortedError(signal, what);
      const token = await this.#token(signal);
      const all: Record<string, string> = { ...o.headers, ...headers };
      const provider = token && o.apiKey === undefined && o.accessToken === undefined ? o.auth : undefined;
      if (token && !provider?.send) all.authorization = `Bearer ${token}`;
      const init = { method: 'GET', headers: all, body: undefined, signal: signal ?? new AbortController().signal };
      let response: Response;
      try {
        response = provider?.send ? await provider.send(token!, { ...init, url, fetch: this.#fetch }) : await this.#fetch(url, init);
      } catch (err) {
        if (signal?.aborted) throw abortedError(signal, what);
        throw new ConnectionError({ code: 'network_error', status: null, message: `Could not reach Slipway: ${(err as Error)?.message ?? String(err)}`, cause: err });
      }
      if (response.ok) return response;
      const text = await response.text().catch(() => '');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const error = errorFromResponse(response, body, parseRetryAfter(response.headers.get('retry-after')));
      if (response.status === 401 && error.code === 'invalid_token' && o.auth?.refresh && !refreshed) {
        await o.auth.refresh(signal, token);
        continue;
      }
      throw error;
    }
  }

  /** The backoff before retry number `retry` (0-based): the client's `initialRetryDelay`/`maxRetryDelay`, jittered. */
  backoff(retry: number): number {
    return this.#backoff(retry);
  }

  /** The client's `maxRetries` (default 2). */
  get maxRetries(): number {
    return this.#options.maxRetries ?? 2;
  }

  /**
   * Sends one request; resolves with the parsed JSON body (undefined for 204). Every failure is a
   * SlipwayError: the server's, `http_<status>` for an error response that is not Slipway's JSON,
   * `timeout`, `request_aborted`, `network_error`, `invalid_response`.
   */
  async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<T> {
    const what = `${spec.method} ${spec.path}`;
    const signal = options.signal;
    try {
      return await this.#send<T>(spec, options);
    } catch (err) {
      // Whatever ended the call (a backoff wait, the token provider, fetch), the caller's abort wins.
      if (signal?.aborted && !(err instanceof SlipwayError && err.cause === signal.reason)) throw abortedError(signal, what);
      throw err;
    }
  }

  async #send<T>(spec: RequestSpec, options: RequestOptions): Promise<T> {
    const o = this.#options;
    const what = `${spec.method} ${spec.path}`;
    const maxRetries = options.maxRetries ?? o.maxRetries ?? 2;
    const timeout = options.timeout ?? o.timeout ?? 60_000;
    const maxRetryAfter = o.maxRetryAfter ?? 60;
    const url = this.url(spec.path, spec.query);
    // The caller's key is sent as given; a create (and a raw POST marked `idempotent`) gets a generated one.
    const idempotencyKey =
      options.idempotencyKey ?? (spec.method === 'POST' && spec.idempotent && o.idempotencyKey !== false ? (o.idempotencyKey ?? randomKey)() : undefined);
    // Without an Idempotency-Key a POST that may have reached the server is not sent again.
    const safeToResend = spec.method !== 'POST' || idempotencyKey !== undefined;
    const signal = options.signal;
    let refreshed = false;

    for (let retry = 0; ; retry += 1) {
      if (signal?.aborted) throw abortedError(signal, what);
      const token = await this.#token(signal);
      const headers: Record<string, string> = { accept: 'application/json', ...o.headers, ...options.headers };
      const provider = token && o.apiKey === undefined && o.accessToken === undefined ? o.auth : undefined;
      if (token && !provider?.send) headers.authorization = `Bearer ${token}`;
      if (spec.body !== undefined) headers['content-type'] = 'application/json';
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;

      const attempt = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attempt.abort();
      }, timeout);
      const onAbort = () => attempt.abort(abortReason(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });

      let response: Response;
      let body: unknown;
      try {
        const init = { method: spec.method, headers, body: spec.body === undefined ? undefined : JSON.stringify(spec.body), signal: attempt.signal };
        response = provider?.send ? await provider.send(token!, { ...init, url, fetch: this.#fetch }) : await this.#fetch(url, init);
        const text = await response.text();
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch (err) {
          // An error page from a proxy is still an error of its status; a success must be JSON.
          if (response.ok) throw err;
          body = undefined;
        }
      } catch (err) {
        if (signal?.aborted) throw abortedError(signal, what);
        const error = timedOut
          ? new TimeoutError({ code: 'timeout', status: null, message: `No response within ${timeout} ms: ${what}`, cause: err })
          : err instanceof SyntaxError
            ? new ConnectionError({ code: 'invalid_response', status: null, message: `The response to ${what} was not JSON`, cause: err })
            : new ConnectionError({ code: 'network_error', status: null, message: `Could not reach Slipway: ${(err as Error)?.message ?? String(err)}`, cause: err });
        if (safeToResend && retry < maxRetries && error.code !== 'invalid_response') {
          await sleep(this.#backoff(retry), signal);
          continue;
        }
        throw error;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }

      if (response.ok) return body as T;

      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const error = errorFromResponse(response, body, retryAfter);
      if (response.status === 401 && error.code === 'invalid_token' && o.auth?.refresh && !refreshed) {
        // One refresh per call, not counted as a retry: the token was rejected, not the request.
        refreshed = true;
        await o.auth.refresh(signal, token);
        retry -= 1;
        continue;
      }
      if ((response.status === 429 || response.status === 503) && retry < maxRetries) {
        if (retryAfter !== undefined && retryAfter > maxRetryAfter) throw error;
        await sleep(retryAfter !== undefined ? retryAfter * 1000 : this.#backoff(retry), signal);
        continue;
      }
      throw error;
    }
  }
}

