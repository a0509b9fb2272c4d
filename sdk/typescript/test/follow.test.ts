import { describe, expect, it } from 'vitest';
import { ConnectionError, NotFoundError, RequestAbortedError, Slipway, SlipwayOAuth, type LogEvent } from '../src/index.ts';
import { parseEventStream } from '../src/follow.ts';
import { harness, login, redirectUri } from './support/env.ts';

const projectId = () => harness().api_key.project_id;
const client = (options: Partial<ConstructorParameters<typeof Slipway>[0]> = {}) =>
  new Slipway({ baseUrl: harness().base_url, apiKey: harness().api_key.key, initialRetryDelay: 5, maxRetryDelay: 20, ...options });

async function deploymentWithLines(ci: Slipway, count: number) {
  const deployment = await ci.deployments.create(projectId(), { environment: 'staging', branch: 'follow' });
  if (count > 0) {
    await ci.deploymentLogs.append(projectId(), deployment.id, { lines: Array.from({ length: count }, (_, i) => ({ text: `line ${i + 1}` })) });
  }
  return deployment;
}

async function finish(ci: Slipway, id: string) {
  for (const status of ['building', 'deploying', 'succeeded'] as const) await ci.deployments.update(projectId(), id, { status });
}

/**
 * A fetch whose log streams (Accept: text/event-stream) are cut after `cuts[i]` `line` events of the
 * i-th stream: the body errors (a reset connection) or ends (a closed one) right after that event.
 */
function cuttingFetch(cuts: { after: number; how: 'error' | 'close' }[]) {
  const requests: Headers[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const response = await globalThis.fetch(input, init);
    if (headers.get('accept') !== 'text/event-stream') return response;
    const cut = cuts[requests.length];
    requests.push(headers);
    if (!cut || !response.body) return response;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let text = '';
    let lines = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) return controller.close();
        text += decoder.decode(value, { stream: true });
        let out = '';
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end + 2);
          text = text.slice(end + 2);
          out += block;
          if (/^event: line$/m.test(block) && ++lines === cut.after) {
            controller.enqueue(encoder.encode(out));
            await reader.cancel();
            if (cut.how === 'error') controller.error(new TypeError('terminated: other side closed'));
            else controller.close();
            return;
          }
        }
        if (out) controller.enqueue(encoder.encode(out));
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: fetchImpl, requests };
}

const seqs = (events: LogEvent[]) => events.flatMap((e) => (e.type === 'line' ? [e.line.seq] : []));

describe('deploymentLogs.follow', () => {
  it('yields the lines in order, the status changes, then end, and stops', async () => {
    const ci = client();
    const deployment = await deploymentWithLines(ci, 3);
    const events: LogEvent[] = [];
    let moved: Promise<void> | undefined;
    for await (const event of ci.deploymentLogs.follow(projectId(), deployment.id)) {
      events.push(event);
      if (event.type === 'line' && event.line.seq === 3) {
        moved = (async () => {
          await ci.deployments.update(projectId(), deployment.id, { status: 'building' });
          await ci.deploymentLogs.append(projectId(), deployment.id, { lines: [{ text: 'line 4' }, { text: 'line 5', stream: 'stderr' }] });
          await ci.deployments.update(projectId(), deployment.id, { status: 'deploying' });
          await ci.deployments.update(projectId(), deployment.id, { status: 'succeeded' });
        })();
      }
    }
    await moved;
    expect(seqs(events)).toEqual([1, 2, 3, 4, 5]);
    expect(events.flatMap((e) => (e.type === 'line' ? [e.line.text] : []))).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5']);
    // The server reports the status it sees at each poll: changes in quick succession may arrive as the last one.
    const statuses = events.flatMap((e) => (e.type === 'status' ? [e.deployment.status] : []));
    expect(statuses.at(-1)).toBe('succeeded');
    expect(statuses).toEqual(['building', 'deploying', 'succeeded'].filter((s) => statuses.includes(s as never)));
    expect(events.at(-1)).toEqual({ type: 'end', status: 'succeeded', last_seq: 5 });
    expect(events.filter((e) => e.type === 'end')).toHaveLength(1);
  });

  it('starts after `after`', async () => {
    const ci = client();
    const deployment = await deploymentWithLines(ci, 6);
    await finish(ci, deployment.id);
    const events: LogEvent[] = [];
    for await (const event of ci.deploymentLogs.follow(projectId(), deployment.id, { after: 4 })) events.push(event);
    expect(seqs(events)).toEqual([5, 6]);
    expect(events.at(-1)).toEqual({ type: 'end', status: 'succeeded', last_seq: 6 });
  });

  it('resumes after a reset and a closed connection with Last-Event-ID: every line exactly once', async () => {
    const cutting = cuttingFetch([
      { after: 4, how: 'error' },
      { after: 3, how: 'close' },
    ]);
    const ci = client({ fetch: cutting.fetch });
    const deployment = await deploymentWithLines(ci, 12);
    await finish(ci, deployment.id);
    const events: LogEvent[] = [];
    for await (const event of ci.deploymentLogs.follow(projectId(), deployment.id)) events.push(event);
    expect(seqs(events)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(events.at(-1)).toEqual({ type: 'end', status: 'succeeded', last_seq: 12 });
    expect(cutting.requests.map((h) => h.get('last-event-id'))).toEqual([null, '4', '7']);
    expect(cutting.requests.every((h) => h.get('authorization') === `Bearer ${harness().api_key.key}`)).toBe(true);
  });

  it('gives up after maxReconnects failed connections in a row with the connection error', async () => {
    let attempts = 0;
    const ci = client({
      fetch: async () => {
        attempts += 1;
        throw new TypeError('fetch failed');
      },
    });
    const iterator = ci.deploymentLogs.follow(projectId(), 'dep_missing', { maxReconnects: 3 });
    const error = await iterator.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe('network_error');
    expect(attempts).toBe(4);
  });

  it('does not reconnect after an answer reconnecting cannot mend (404)', async () => {
    const cutting = cuttingFetch([]);
    const ci = client({ fetch: cutting.fetch });
    const error = await ci.deploymentLogs
      .follow(projectId(), 'dep_doesnotexist')
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(cutting.requests).toHaveLength(1);
  });

  it('the caller\'s signal ends a follow that waits for lines', async () => {
    const ci = client();
    const deployment = await deploymentWithLines(ci, 2);
    const controller = new AbortController();
    const events: LogEvent[] = [];
    const error = await (async () => {
      for await (const event of ci.deploymentLogs.follow(projectId(), deployment.id, { signal: controller.signal })) {
        events.push(event);
        if (events.length === 2) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(seqs(events)).toEqual([1, 2]);
  });

  it('with a DPoP-bound token: every connection carries a fresh proof the server accepts', async () => {
    const info = harness();
    const cutting = cuttingFetch([{ after: 2, how: 'error' }]);
    const oauth = new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.public_client.client_id, redirectUri: redirectUri(info), dpop: true, fetch: cutting.fetch });
    const tokens = await login(info, 'read write', 'owner', oauth);
    expect(tokens.tokenType).toBe('dpop');
    const owner = new Slipway({ baseUrl: info.base_url, auth: oauth.session(tokens), fetch: cutting.fetch, initialRetryDelay: 5 });
    const deployment = await deploymentWithLines(owner, 5);
    await finish(owner, deployment.id);
    const events: LogEvent[] = [];
    for await (const event of owner.deploymentLogs.follow(projectId(), deployment.id)) events.push(event);
    expect(seqs(events)).toEqual([1, 2, 3, 4, 5]);
    expect(cutting.requests.map((h) => h.get('last-event-id'))).toEqual([null, '2']);
    expect(cutting.requests.every((h) => h.get('authorization') === `DPoP ${tokens.accessToken}`)).toBe(true);
    const proofs = cutting.requests.map((h) => JSON.parse(Buffer.from(h.get('dpop')!.split('.')[1]!, 'base64url').toString()) as { jti: string; htm: string; htu: string });
    expect(new Set(proofs.map((p) => p.jti)).size).toBe(2);
    expect(proofs.every((p) => p.htm === 'GET' && p.htu.startsWith(`${info.base_url}/v1/projects/${projectId()}/deployments/${deployment.id}/logs`))).toBe(true);
  });

  it('checks its arguments at the call', () => {
    const ci = client();
    expect(() => ci.deploymentLogs.follow(projectId(), '')).toThrow(TypeError);
    expect(() => ci.deploymentLogs.follow(projectId(), 'dep_x', { after: -1 })).toThrow(TypeError);
  });
});

describe('the event stream parser', () => {
  it('takes LF, CRLF and CR line ends, chunks cut anywhere, comments, multi-line data, and dispatches on a blank line only', async () => {
    const text = ': keep-alive\r\n\r\nid: 1\r\nevent: line\r\ndata: {"seq":1}\r\n\r\nevent: status\rdata: a\rdata: b\r\revent: end\ndata:{"x":1}\n\nevent: line\ndata: {"seq":9}\n';
    const bytes = new TextEncoder().encode(text);
    // Every way of cutting the bytes in two gives the same events.
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.slice(0, cut));
          controller.enqueue(bytes.slice(cut));
          controller.close();
        },
      });
      const events = [];
      for await (const event of parseEventStream(body)) events.push(event);
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'line', data: '{"seq":1}', id: '1' },
        { event: 'status', data: 'a\nb', id: '1' },
        { event: 'end', data: '{"x":1}', id: '1' },
      ]);
    }
  });
});
