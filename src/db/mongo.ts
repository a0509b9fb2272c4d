import { MongoClient, type Db } from 'mongodb';

export interface Database {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/** How long an operation looks for a reachable server by default (MONGODB_TIMEOUT_MS). */
export const DEFAULT_TIMEOUT_MS = 1000;

/**
 * While the database is unreachable every request must answer 503 within 2 s: an operation gives up
 * after `timeoutMs` of server selection and a new connection after `timeoutMs` of connecting. The
 * driver keeps monitoring the server and reconnects by itself once it is back, so recovery needs no
 * restart.
 */
export async function connectDatabase(uri: string, dbName: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Database> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    // A server that stops answering without closing its connections is noticed by the monitor's next
    // check (every 0.5 s, given up after connectTimeoutMS), which then fails the operations waiting on it.
    heartbeatFrequencyMS: 500,
    // A retry would select a server again and double the wait. The request answers 503 with
    // Retry-After instead, and the client retries it (safely, with an Idempotency-Key).
    retryReads: false,
    retryWrites: false,
    maxPoolSize: 50,
    appName: 'slipway',
    // Command monitoring feeds the database latency metric (see watchDatabaseCommands).
    monitorCommands: true,
  });
  await client.connect();
  const db = client.db(dbName);
  return { client, db, close: () => client.close() };
}

/**
 * True when the server answers a ping within the timeout. The timer bounds the answer itself: the
 * driver's own timeout does not cover every wait (server selection, a checked-out connection).
 */
export async function pingDatabase(db: Db, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([db.command({ ping: 1 }, { timeoutMS: timeoutMs }).then(() => true), timedOut]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
