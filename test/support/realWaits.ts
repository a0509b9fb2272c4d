/**
 * The only waits on the wall clock in test/. Everything else that depends on time moves the server's
 * clock (test/support/clock.ts) or polls for what it expects (waitFor, test/support/processes.ts). Each
 * wait here is named for why real time must pass; test/ops/realWaits.test.ts keeps fixed waits of over
 * 100 ms out of the test files themselves.
 */
const wallClock = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const realWaits = {
  /**
   * The webhook dispatcher polls on a real interval (webhookPollIntervalMs): that nothing more happens
   * (no third connection to an endpoint, no second attempt at a delivery) is only seen over real polls.
   */
  dispatcherPolls: wallClock,
  /**
   * The event streams' pollers (log lines, deployment changes) poll on a real interval
   * (logPollIntervalMs): that nothing is sent twice is only seen over real polls.
   */
  streamPolls: wallClock,
  /**
   * Another process (a Slipway started as a child, with its own timers) runs in real time: that it does
   * nothing more (no duplicate delivery) is only seen over real time.
   */
  childProcess: wallClock,
  /** A real outage lasts this long: a database process killed or stopped, a connection attempt timing out meanwhile. */
  outage: wallClock,
  /** A client's pause between retries against a real failing service: pacing, not a deadline. */
  clientBackoff: wallClock,
  /** Another process holds the port a restarted server listens on again (an outgoing connection's, say): it is let go in real time. */
  portTaken: wallClock,
};
