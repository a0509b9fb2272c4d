import type { Request } from 'autocannon';
import type { Seed } from './seed.ts';

/** The Slipway server under test (a child process, so its memory can be read from /proc). */
export interface ServerUnderTest {
  /** `http://127.0.0.1:PORT` (also its PUBLIC_URL). */
  url: string;
  /** `{url}/oauth` */
  issuer: string;
  pid: number;
}

export interface BenchContext {
  server: ServerUnderTest;
  /** Database commands the Slipway server has sent so far (driver command monitoring, read from /metrics). */
  databaseCommands(): Promise<number>;
  seed: Seed;
  connections: number;
  /** The embedded database's process (FerretDB), whose CPU time is measured per request; undefined with MONGODB_URI. */
  databasePid?: number;
}

/**
 * What a scenario hands to the load generator. `requests` is autocannon's request list (method, path,
 * headers, body, optionally `setupRequest`/`onResponse` for requests that change as the run goes).
 */
export interface PreparedScenario {
  requests: Request[];
  /** Another target (a baseline server, say); defaults to the Slipway server. */
  url?: string;
  /** Whose memory to sample; defaults to the Slipway server. */
  pid?: number;
  /** The database process of another target (the fair peer's FerretDB), whose CPU per request is measured. */
  databasePid?: number;
  /** Concurrent connections for this scenario (default BENCH_CONNECTIONS); the title should say so. */
  connections?: number;
  /** Per-request timeout in seconds (default 10). */
  timeoutSeconds?: number;
  /** A short unmeasured run first (default true); off when every request consumes state. */
  warmup?: boolean;
  close?(): Promise<void>;
}

/**
 * One line of the report. `prepare` runs once, before the load, and may do any setup it needs (mint
 * tokens, seed rows, start a baseline server); the first request it returns is also sent once up front
 * and must answer 2xx, so a broken scenario fails fast with the server's answer.
 */
export interface Scenario {
  /** Short identifier for BENCH_SCENARIOS, e.g. `healthz`, `token-refresh`. */
  id: string;
  /** What the table shows. */
  title: string;
  /** Id of a baseline scenario in the same run; the report prints this one's req/s relative to it. */
  compareTo?: string;
  /** Run only when named in BENCH_SCENARIOS (a long scenario: seeding, or a database made large). */
  optIn?: boolean;
  /** The least share of the baseline's req/s this scenario should reach (printed as met or not). */
  target?: number;
  /**
   * The fair peer (oidc-provider on a plain MongoDB adapter, bench/lib/peerMongoAdapter.ts) and the least
   * ratio of req/s to it. A scenario with a peer runs in alternating rounds with its baseline and peer
   * (BENCH_ROUNDS), and the report gives the ratio of each round, their median and range.
   */
  peer?: { id: string; target: number };
  /**
   * Runs in alternating rounds with its `compareTo` baseline (BENCH_ROUNDS), as a scenario with a peer
   * does: a ratio per round, their median and range, against `target`.
   */
  alternate?: boolean;
  /** What one request carries (e.g. 10 log lines): the report gives `unit`/s = perRequest × req/s, against `target` when set. */
  throughput?: { unit: string; perRequest: number; target?: number };
  prepare(ctx: BenchContext): Promise<PreparedScenario>;
}

export interface ScenarioResult {
  id: string;
  title: string;
  requestsPerSecond: number;
  totalRequests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Highest resident set size sampled while the scenario ran, in bytes (undefined without /proc). */
  peakRssBytes: number | undefined;
  /**
   * Database commands the Slipway server sent per measured request (its background work, the webhook
   * dispatcher's polling and the sweeper, included); undefined for scenarios aimed at a baseline.
   */
  dbCommandsPerRequest: number | undefined;
  /**
   * CPU milliseconds per measured request of the server answering (the Slipway server, or the
   * scenario's baseline), and of the embedded database (Slipway scenarios only): what a request costs
   * the machine, which a busy machine changes far less than it changes req/s.
   */
  serverCpuMsPerRequest: number | undefined;
  databaseCpuMsPerRequest: number | undefined;
  /** Status codes other than 2xx, for the failure summary. */
  statusCodes: Record<string, number>;
}
