import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '../config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb, type EmbeddedDatabase } from '../db/embeddedFerretdb.ts';
import { connectDatabase, type Database } from '../db/mongo.ts';
import { loadOrCreateKeys, type KeyMaterial } from '../keys/keystore.ts';
import type { Logger } from '../logger.ts';
import { createRepositories, migrate, type Repositories } from '../repositories/index.ts';

/** What the server and the CLI share: one database, its repositories, and the key material. */
export interface Runtime {
  config: Config;
  logger: Logger;
  database: Database;
  repos: Repositories;
  keys: KeyMaterial;
  close(): Promise<void>;
}

const ENDPOINT_FILE = '.ferretdb-endpoint';

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
  const binary = await ensureFerretdbBinary(config.rootDir, FERRETDB_VERSION, logger, config.toolsDir);
  const embedded = await startFerretdb({ binary, dataDir: path.join(config.dataDir, 'ferretdb'), logger, synchronous: config.embeddedSqliteSynchronous });
  await writeFile(endpointFile, String(embedded.port));
  logger.info({ port: embedded.port, data_dir: config.dataDir }, 'embedded database started');
  const stop = embedded.stop.bind(embedded);
  embedded.stop = async () => {
    await rm(endpointFile, { force: true });
    await stop();
  };
  return { uri: embedded.uri, embedded };
}

export async function openRuntime(config: Config, logger: Logger, options: { migrate?: boolean } = {}): Promise<Runtime> {
  const { uri, embedded } = await resolveDatabase(config, logger);
  let database: Database;
  try {
    database = await connectDatabase(uri, config.mongodbDb, config.mongodbTimeoutMs);
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  const repos = createRepositories(database.db, { cacheMs: config.principalCacheSeconds * 1000 });
  const keys = await loadOrCreateKeys(config.keysDir);
  if (keys.created.length) logger.info({ files: keys.created, dir: config.keysDir }, 'generated key material');
  if (options.migrate !== false) await migrate(database.db, repos);
  return {
    config,
    logger,
    database,
    repos,
    keys,
    async close() {
      await database.close();
      await embedded?.stop();
    },
  };
}
