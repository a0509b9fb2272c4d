import { waitFor } from './processes.ts';
import type { TestServer } from './server.ts';

/** A Server-Sent Events stream of the API (docs/product.md §10) read over real HTTP, for the log and deployment-stream tests. */
export interface SseEvent {
  id?: string;
  event: string;
  data: { seq?: number; [field: string]: unknown };
}

/** A follower over real HTTP: the events as they arrive, and whether the server ended the stream. */
export class Follower {
  readonly events: SseEvent[] = [];
  readonly arrivals: number[] = [];
  ended = false;
  readonly #abort = new AbortController();
  response!: Response;

  static async open(server: TestServer, path: string, as: string, headers: Record<string, string> = {}): Promise<Follower> {
    const follower = new Follower();
    follower.response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${as}`, accept: 'text/event-stream', ...headers }, signal: follower.#abort.signal });
    if (follower.response.ok) void follower.#read();
    return follower;
  }

  async #read(): Promise<void> {
    const reader = this.response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: Partial<SseEvent> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) event.data = JSON.parse(line.slice(6));
            else if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
          }
          if (event.event) {
            this.events.push(event as SseEvent);
            this.arrivals.push(performance.now());
          }
        }
      }
    } catch {
      // aborted by the test
    }
    this.ended = true;
  }

  readonly comments: string[] = [];

  /** How many `line` events arrived. */
  get lines(): number {
    return this.events.filter((e) => e.event === 'line').length;
  }

  seqs(): number[] {
    return this.events.filter((e) => e.event === 'line').map((e) => Number(e.data.seq));
  }

  async until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
    await waitFor(what, async () => check(), timeoutMs, 20);
  }

  close(): void {
    this.#abort.abort();
  }
}
