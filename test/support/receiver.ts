import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** When the request arrived (ms since the epoch). */
  at: number;
  /** What the receiver answered (null: it never did). */
  status: number | null;
}

/** A status to answer (with headers, after `delayMs`), or 'hang' to keep the request open until the receiver closes. */
export type Answer = number | { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests open now (arrived, not answered and not abandoned by the sender). */
  open: number;
  /** The most requests that were ever open at once. */
  maxOpen: number;
  /** Decides each answer from the request's position (0-based) among those received; default 200. */
  answer: (index: number, request: Received) => Answer;
  close(): Promise<void>;
}

/** A webhook receiver: a real node:http server on a loopback port recording every request. */
export async function startReceiver(answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver = { received: [] as Received[], answer, open: 0, maxOpen: 0 } as Receiver;
  const server = http.createServer((req, res) => {
    receiver.open += 1;
    receiver.maxOpen = Math.max(receiver.maxOpen, receiver.open);
    // Over when the answer is sent or the sender gives up (a timed-out attempt closes the connection).
    res.once('close', () => (receiver.open -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), status: null };
      const index = receiver.received.push(entry) - 1;
      const decided = receiver.answer(index, entry);
      if (decided === 'hang') {
        hanging.add(res);
        return;
      }
      const { status, headers, delayMs = 0 } = typeof decided === 'number' ? { status: decided } : decided;
      entry.status = status;
      const send = () => res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('ok');
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.port = port;
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  receiver.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
