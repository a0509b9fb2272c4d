import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb } from '../../src/db/embeddedFerretdb.ts';

export interface BenchDatabase {
  uri: string;
  /** How the report names it. */
  description: string;
  /** The embedded database's process; undefined with MONGODB_URI. */
  pid?: number;
  close(): Promise<void>;
}


/**
 * MONGODB_URI when set (the benchmark then uses a database of its own there); otherwise FerretDB on
 * SQLite in a temporary directory, exactly what `npm start` runs without MONGODB_URI. FERRETDB_BINARY
 * runs another build instead (e.g. one of fewer patches, to compare in the same conditions).
 */
export async function openBenchDatabase(): Promise<BenchDatabase> {
  if (process.env.MONGODB_URI) {
    const { host } = new URL(process.env.MONGODB_URI.replace(/^mongodb(\+srv)?:/, 'http:'));
    return { uri: process.env.MONGODB_URI, description: `MONGODB_URI (${host})`, close: async () => undefined };
  }
  const binary = process.env.FERRETDB_BINARY || (await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-bench-db-'));
  // As the server would run it: EMBEDDED_SQLITE_SYNCHRONOUS (default normal).
  const synchronous = process.env.EMBEDDED_SQLITE_SYNCHRONOUS === 'full' ? 'full' : 'normal';
  const ferretdb = await startFerretdb({ binary, dataDir: dir, synchronous });
  return {
    uri: ferretdb.uri,
    description: `FerretDB ${FERRETDB_VERSION} on SQLite (embedded, ${path.basename(binary)}, ${dir}, synchronous=${synchronous})`,
    pid: ferretdb.pid,
    async close() {
      await ferretdb.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
