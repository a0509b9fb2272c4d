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

/** A status to answer (with headers), or 'hang' to keep the request open until the receiver closes. */
export type Answer = number | { status: number; headers: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides each answer from the request's position (0-based) among those received; default 200. */
  answer: (index: number, request: Received) => Answer;
  close(): Promise<void>;
}

/** A webhook receiver: a real node:http server on a loopback port recording every request. */
export async function startReceiver(answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver = { received: [] as Received[], answer } as Receiver;
  const server = http.createServer((req, res) => {
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
      const { status, headers } = typeof decided === 'number' ? { status: decided, headers: {} } : decided;
      entry.status = status;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('ok');
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
