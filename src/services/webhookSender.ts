import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedTarget } from './webhookTargets.ts';

/** How much of a receiver's answer is read: enough to drain small bodies, never an unbounded read. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult {
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/**
 * A `lookup` for http(s).request that answers with the checked target's addresses instead of asking DNS
 * again, so a rebinding resolver cannot redirect the connection. Every outbound request to an address
 * a tenant chose goes through it (webhooks; issuer keys, src/services/issuerKeys.ts).
 */
export function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : undefined;
    const candidates = family ? target.addresses.filter((a) => a.family === family) : target.addresses;
    if (candidates.length === 0) return callback(Object.assign(new Error('no checked address for that family'), { code: 'ENOTFOUND' }), '', 0);
    if (options.all) return (callback as unknown as (err: null, addresses: { address: string; family: number }[]) => void)(null, candidates);
    callback(null, candidates[0]!.address, candidates[0]!.family);
  };
}

/**
 * GETs a checked target's JSON: the connection pinned to the checked addresses, no redirects (a 3xx
 * is a failure), at most `maxBytes` read, the whole exchange bounded by `timeoutMs`. Throws an Error
 * whose message says what failed (never the body).
 */
export async function getCheckedJson(target: CheckedTarget, timeoutMs: number, maxBytes: number): Promise<unknown> {
  const client = target.url.protocol === 'https:' ? https : http;
  return await new Promise<unknown>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value);
    };
    const request = client.request(target.url, { method: 'GET', headers: { accept: 'application/json' }, lookup: pinnedLookup(target), agent: false }, (response) => {
      if (response.statusCode !== 200) {
        response.destroy();
        return finish(new Error(`answered ${response.statusCode}`));
      }
      const chunks: Buffer[] = [];
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > maxBytes) {
          response.destroy();
          return finish(new Error(`answer larger than ${maxBytes} bytes`));
        }
        chunks.push(chunk);
      });
      response.on('end', () => {
        try {
          finish(null, JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch {
          finish(new Error('answer is not JSON'));
        }
      });
      response.on('error', () => finish(new Error('connection failed')));
    });
    const timer = setTimeout(() => {
      finish(new Error(`timed out after ${timeoutMs} ms`));
      request.destroy();
    }, timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => finish(new Error(describe(err))));
    request.end();
  });
}

/**
 * POSTs `body` to a checked target. The connection goes only to the addresses that were checked (the
 * `lookup` below answers with them instead of asking DNS again, so a rebinding resolver cannot redirect
 * it); TLS still verifies the certificate for the URL's host name. Redirects are not followed (a 3xx is
 * a failed attempt); the whole exchange is bounded by `timeoutMs`; the answer's body is read up to 64 KiB.
 */
export async function postWebhook(target: CheckedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  const pinned = pinnedLookup(target);
  const client = target.url.protocol === 'https:' ? https : http;
  const elapsed = () => Math.round(performance.now() - started);
  return await new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status_code: status, duration_ms: elapsed(), error });
    };
    const request = client.request(
      target.url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: pinned, agent: false },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) {
            response.destroy();
            finish(response.statusCode ?? null, null);
          }
        });
        response.on('end', () => finish(response.statusCode ?? null, null));
        response.on('error', () => finish(response.statusCode ?? null, null));
      },
    );
    const timer = setTimeout(() => {
      finish(null, `timed out after ${timeoutMs} ms`);
      request.destroy();
    }, timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => finish(null, describe(err)));
    request.end(body);
  });
}

function describe(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
      return 'host not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return err.code?.startsWith('ERR_TLS') || err.code?.includes('CERT') ? 'TLS error' : 'connection failed';
  }
}
