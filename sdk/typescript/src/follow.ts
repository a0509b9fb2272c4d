/**
 * Following a deployment's log live (hand-written; the generated `DeploymentLogs` has `read` and
 * `append`): `GET …/logs` with `Accept: text/event-stream`, read as Server-Sent Events, resumed with
 * `Last-Event-ID` after a dropped connection.
 */
import { abortedError, sleep, type ApiClient } from './core.js';
import { ConnectionError, RateLimitError, SlipwayError } from './errors.js';
import { fillPath } from './resource.js';
import { DeploymentLogs } from './resources/deploymentLogs.js';
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];

/** One line of a deployment's log: `{ seq, stream, text, timestamp }`. */
export type LogLine = Schemas['LogLine'];

/**
 * What following a log yields, in the server's order: every line once (`seq` 1, 2, 3… after
 * `after`), the deployment whenever its status changes, and `end` once it has finished and every
 * line stored by then was sent (the iteration then stops).
 */
export type LogEvent =
  | { type: 'line'; line: LogLine }
  | { type: 'status'; deployment: Schemas['Deployment'] }
  | { type: 'end'; status: Schemas['Deployment']['status']; last_seq: number };

export interface FollowOptions {
  /** Start after this line number (0 or left out: from the first line). */
  after?: number;
  /** Ends the iteration (it throws `request_aborted`, or `timeout` for `AbortSignal.timeout`). */
  signal?: AbortSignal;
  /**
   * Connections in a row that may fail (no event received) before the iteration throws the last
   * error. Default 5. A connection that delivered an event resets the count.
   */
  maxReconnects?: number;
  /** Headers for every connection, over the client's `headers`. */
  headers?: Record<string, string>;
}

/** One Server-Sent Event: its `event`, `data` and `id` fields (WHATWG HTML, "event stream interpretation"). */
interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * The events of a text/event-stream body, as they complete. Small on purpose (the format is a few
 * rules: lines end with CRLF, LF or CR; `field: value`; a blank line dispatches; `:` starts a comment),
 * so the SDK needs no dependency for it.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  let sawData = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const match = /\r\n|\n|\r/.exec(buffer);
        // A lone CR at the end may be the first half of CRLF: wait for the next chunk.
        if (!match || (match[0] === '\r' && match.index === buffer.length - 1)) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          if (sawData) yield { event: event || 'message', data: data.join('\n'), id };
          event = '';
          data = [];
          sawData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let fieldValue = colon < 0 ? '' : line.slice(colon + 1);
        if (fieldValue.startsWith(' ')) fieldValue = fieldValue.slice(1);
        if (field === 'event') event = fieldValue;
        else if (field === 'data') {
          data.push(fieldValue);
          sawData = true;
        } else if (field === 'id' && !fieldValue.includes('\0')) id = fieldValue;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** A failure after which reconnecting may help: the network, the stream cut, 429, 5xx. */
function mayReconnect(err: unknown): boolean {
  if (!(err instanceof SlipwayError)) return true;
  if (err.code === 'request_aborted') return false;
  return err.status === null || err.status === 429 || err.status >= 500;
}

/**
 * Follows a deployment's log: see `DeploymentLogsFollowing.follow`. The ids are checked at the call,
 * the first connection is opened at the first iteration.
 */
export function followLog(api: ApiClient, projectId: string, deploymentId: string, options: FollowOptions = {}): AsyncGenerator<LogEvent, void, undefined> {
  const path = fillPath('/v1/projects/{project_id}/deployments/{deployment_id}/logs', [projectId, deploymentId]);
  if (options.after !== undefined && !(Number.isSafeInteger(options.after) && options.after >= 0)) throw new TypeError('after must be a non-negative integer');
  return follow(api, path, options);
}

async function* follow(api: ApiClient, path: string, options: FollowOptions): AsyncGenerator<LogEvent, void, undefined> {
  const { signal } = options;
  const maxReconnects = options.maxReconnects ?? 5;
  let last = options.after ?? 0;
  let failures = 0;
  for (;;) {
    let delivered = false;
    try {
      const headers: Record<string, string> = { ...options.headers, accept: 'text/event-stream' };
      if (last > 0) headers['last-event-id'] = String(last);
      const response = await api.openStream(path, last > 0 ? { after: last } : undefined, headers, signal);
      if (!response.body) throw new ConnectionError({ code: 'invalid_response', status: null, message: `The log stream of ${path} had no body` });
      for await (const sse of parseEventStream(response.body)) {
        // An event of another name (a later server's) is passed over.
        if (sse.event !== 'line' && sse.event !== 'status' && sse.event !== 'end') continue;
        const data: unknown = JSON.parse(sse.data);
        if (sse.event === 'line') {
          const line = data as LogLine;
          // Never a line twice, even from a server that resent one.
          if (line.seq <= last) continue;
          last = line.seq;
          delivered = true;
          failures = 0;
          yield { type: 'line', line };
        } else if (sse.event === 'status') {
          delivered = true;
          failures = 0;
          yield { type: 'status', deployment: data as Schemas['Deployment'] };
        } else if (sse.event === 'end') {
          const end = data as { status: Schemas['Deployment']['status']; last_seq: number };
          yield { type: 'end', status: end.status, last_seq: end.last_seq };
          return;
        }
      }
      throw new ConnectionError({ code: 'network_error', status: null, message: `The log stream of ${path} closed before its end` });
    } catch (err) {
      if (signal?.aborted) throw abortedError(signal, `GET ${path}`);
      const error =
        err instanceof SlipwayError
          ? err
          : err instanceof SyntaxError
            ? new ConnectionError({ code: 'invalid_response', status: null, message: `An event of the log stream of ${path} was not JSON`, cause: err })
            : new ConnectionError({ code: 'network_error', status: null, message: `The log stream of ${path} broke: ${(err as Error)?.message ?? String(err)}`, cause: err });
      if (!mayReconnect(error) || error.code === 'invalid_response') throw error;
      if (!delivered) failures += 1;
      if (failures > maxReconnects) throw error;
      const retryAfter = error instanceof RateLimitError ? error.retryAfter : undefined;
      try {
        await sleep(retryAfter !== undefined ? retryAfter * 1000 : api.backoff(Math.max(0, failures - 1)), signal);
      } catch {
        throw abortedError(signal!, `GET ${path}`);
      }
    }
  }
}

/** `slipway.deploymentLogs`: the generated `read` and `append`, and `follow`. */
export class DeploymentLogsFollowing extends DeploymentLogs {
  readonly #api: ApiClient;

  constructor(api: ApiClient) {
    super(api);
    this.#api = api;
  }

  /**
   * Follows a deployment's log live: an async iterable of `{ type: 'line', line }` (every line once,
   * in order), `{ type: 'status', deployment }` (when its status changes) and, once it has finished,
   * `{ type: 'end', status, last_seq }` (the iteration then stops). A dropped connection is resumed
   * by itself after the last line seen (`Last-Event-ID`), with the client's backoff; after
   * `maxReconnects` failed connections in a row, or an error that reconnecting does not mend (403,
   * 404…), the iteration throws the SlipwayError. `break` closes the connection.
   *
   *   for await (const event of slipway.deploymentLogs.follow(projectId, deploymentId)) {
   *     if (event.type === 'line') console.log(event.line.text);
   *   }
   *
   * `GET /v1/projects/{project_id}/deployments/{deployment_id}/logs` with `Accept: text/event-stream`
   */
  follow(projectId: string, deploymentId: string, options?: FollowOptions): AsyncGenerator<LogEvent, void, undefined> {
    return followLog(this.#api, projectId, deploymentId, options);
  }
}
