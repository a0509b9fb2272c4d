/**
 * A background poller's loop: from `start()` until `stop()`, runs `tick` and, `intervalMs` after it
 * ended, again (never two at once). The timer does not keep the process alive; `stop()` waits for a
 * tick in progress. The tick handles its own errors.
 */
export class PollLoop {
  readonly #tick: () => Promise<unknown>;
  readonly #intervalMs: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;

  constructor(tick: () => Promise<unknown>, intervalMs: () => number) {
    this.#tick = tick;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#tick().finally(() => {
        this.#running = undefined;
        this.#schedule();
      });
    }, this.#intervalMs());
    this.#timer.unref();
  }
}
