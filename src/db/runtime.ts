import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../config/index.ts';
import { EmbeddedDatabaseUnavailable, FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb, type EmbeddedDatabase } from './embeddedFerretdb.ts';
import { connectDatabase, type Database } from './mongo.ts';
import type { Logger } from '../logger.ts';

const ENDPOINT_FILE = '.ferretdb-endpoint';

/** The embedded database could not be built or started (Go is there, but the build or FerretDB failed). */
export class EmbeddedDatabaseFailed extends Error {
  readonly dataDir: string;
  constructor(dataDir: string, cause: unknown) {
    super(`the embedded database could not be started: ${(cause as Error).message}`, { cause });
    this.name = 'EmbeddedDatabaseFailed';
    this.dataDir = dataDir;
  }
}

/** True when something accepts TCP connections on 127.0.0.1:port. */
export async function reachable(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * MONGODB_URI when set; otherwise the embedded database under `dataDir`, reusing the one a running
 * server started (so the CLI and the server never open the same files from two processes).
 */
async function resolveDatabase(config: Config, logger: Logger): Promise<{ uri: string; embedded?: EmbeddedDatabase }> {
  if (config.mongodbUri) return { uri: config.mongodbUri };
  const endpointFile = path.join(config.dataDir, ENDPOINT_FILE);
  if (existsSync(endpointFile)) {
    const port = Number((await readFile(endpointFile, 'utf8')).trim());
    if (Number.isInteger(port) && (await reachable(port))) return { uri: `mongodb://127.0.0.1:${port}/` };
  }
  let embedded: EmbeddedDatabase;
  try {
    const binary = await ensureFerretdbBinary(config.rootDir, FERRETDB_VERSION, logger, config.toolsDir);
    embedded = await startFerretdb({ binary, dataDir: path.join(config.dataDir, 'ferretdb'), logger, synchronous: config.embeddedSqliteSynchronous });
  } catch (err) {
    if (err instanceof EmbeddedDatabaseUnavailable) throw err;
    throw new EmbeddedDatabaseFailed(config.dataDir, err);
  }
  await writeFile(endpointFile, String(embedded.port));
  logger.info({ port: embedded.port, data_dir: config.dataDir }, 'embedded database started');
  const stop = embedded.stop.bind(embedded);
  embedded.stop = async () => {
    await rm(endpointFile, { force: true });
    await stop();
  };
  return { uri: embedded.uri, embedded };
}

/**
 * Connects to the database: MONGODB_URI, or the embedded one (started here, or reused from a running
 * server). `close` disconnects and stops the embedded database when this call started it.
 */
export async function openDatabase(config: Config, logger: Logger): Promise<Database & { close(): Promise<void> }> {
  const { uri, embedded } = await resolveDatabase(config, logger);
  let database: Database;
  try {
    database = await connectDatabase(uri, config.mongodbDb, { timeoutMs: config.mongodbTimeoutMs, connectTimeoutMs: config.mongodbConnectTimeoutMs });
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  return {
    ...database,
    async close() {
      await database.close();
      await embedded?.stop();
    },
  };
}
