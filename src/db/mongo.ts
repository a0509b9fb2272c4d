import { MongoClient, type Db } from 'mongodb';

export interface Database {
  client: MongoClient;
  db: Db;
  /**
   * Whether the driver holds the server for reachable: false once it failed to connect, or its health
   * check failed or timed out (MONGODB_CONNECT_TIMEOUT_MS); true again once a check succeeds.
   */
  reachable(): boolean;
  close(): Promise<void>;
}

/** How long an operation looks for a reachable server by default (MONGODB_TIMEOUT_MS). */
export const DEFAULT_TIMEOUT_MS = 1000;
/** How long connecting and the driver's health check of the server may take by default (MONGODB_CONNECT_TIMEOUT_MS). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export interface DatabaseTimeouts {
  /** Server selection: how long an operation waits for a server the driver holds for reachable. */
  timeoutMs?: number;
  /** Connecting (TCP and handshake) and the monitor's check of the server: how slow a live server may be. */
  connectTimeoutMs?: number;
}

/**
 * Busy is not down. The database counts as down only when the driver cannot reach it: a refused or
 * failed connection (a stopped server: at once), or a connection or health check that takes longer
 * than `connectTimeoutMs` (an unreachable or hung server). Then operations fail after `timeoutMs` of
 * server selection and requests answer 503, and the driver reconnects by itself once the server is
 * back. A slow reply never counts: operations have no socket timeout, the wait for a pooled connection
 * is bounded only by the pool being cleared (which happens only when the server is found down), and
 * the health check allows `connectTimeoutMs` (10 s), which a loaded FerretDB answers well within
 * (its `hello` took up to 3 s in our load test, where a 1 s limit cleared the pool and failed requests).
 */
export async function connectDatabase(uri: string, dbName: string, timeouts: DatabaseTimeouts = {}): Promise<Database> {
  const timeoutMs = timeouts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const connectTimeoutMs = timeouts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: timeoutMs,
    // The monitor's own check uses this limit too (its socket timeout): it must be one a slow but live
    // server meets, or a loaded database is taken for a dead one and the pool is cleared under load.
    connectTimeoutMS: connectTimeoutMs,
    // Checked every 0.5 s, so a server that went away, or came back, is noticed within a second.
    heartbeatFrequencyMS: 500,
    // No socket timeout: a slow operation is waited for (a hung server is caught by the monitor above).
    socketTimeoutMS: 0,
    // A retry would select a server again and double the wait. The request answers 503 with
    // Retry-After instead, and the client retries it (safely, with an Idempotency-Key).
    retryReads: false,
    retryWrites: false,
    maxPoolSize: 50,
    // Durable and consistent across a replica-set failover (docs/OPERATIONS.md): a write acknowledged to a
    // client (a token, a single-use claim, a revocation, an idempotency record) is on a majority of
    // members and in their journals, so a new primary cannot roll it back; reads see only such writes,
    // and come from the primary, so a read follows the write before it. A standalone server or the
    // embedded FerretDB treats these as plain acknowledged writes and reads. MONGODB_URI may set others.
    ...unlessInUri(uri, {
      writeConcern: { w: 'majority', journal: true },
      readConcern: { level: 'majority' },
      readPreference: 'primary',
    }),
    appName: 'slipway',
    // Command monitoring feeds the database latency metric (see watchDatabaseCommands).
    monitorCommands: true,
  });
  let reachable = true;
  client.on('topologyDescriptionChanged', (event) => (reachable = event.newDescription.hasDataBearingServers));
  await client.connect();
  const db = client.db(dbName);
  return { client, db, reachable: () => reachable, close: () => client.close() };
}

/** The URI's own options, by lower-cased name (`w`, `journal`, `readconcernlevel`, `readpreference`, …). */
function uriOptionNames(uri: string): Set<string> {
  const query = uri.split('?')[1] ?? '';
  return new Set(query.split('&').filter(Boolean).map((pair) => decodeURIComponent(pair.split('=')[0]!).toLowerCase()));
}

/** Our defaults for durability and consistency, each left out where MONGODB_URI states its own. */
function unlessInUri(uri: string, defaults: { writeConcern: { w: 'majority'; journal: boolean }; readConcern: { level: 'majority' }; readPreference: 'primary' }) {
  const named = uriOptionNames(uri);
  const options: Partial<typeof defaults> = {};
  if (!named.has('w') && !named.has('journal') && !named.has('wtimeoutms')) options.writeConcern = defaults.writeConcern;
  if (!named.has('readconcernlevel')) options.readConcern = defaults.readConcern;
  if (!named.has('readpreference')) options.readPreference = defaults.readPreference;
  return options;
}

/** What a ping found: an answer, an error (no server), or no answer yet after the timeout. */
export type PingResult = 'ok' | 'failed' | 'timeout';

/**
 * Pings the server, waiting at most `timeoutMs`. The timer bounds the answer itself: the driver's own
 * timeout does not cover every wait (server selection, a checked-out connection).
 */
export async function pingDatabase(db: Db, timeoutMs = 2000): Promise<PingResult> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  try {
    return await Promise.race([db.command({ ping: 1 }).then((): PingResult => 'ok'), timedOut]);
  } catch {
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}
