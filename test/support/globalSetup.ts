import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb, type EmbeddedDatabase } from '../../src/db/embeddedFerretdb.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    mongodbUri: string;
  }
}

/**
 * One database server for the whole run: MONGODB_URI when given, otherwise FerretDB in a temporary
 * directory on a free loopback port. Each test file then uses a database of its own.
 */
export default async function setup(project: TestProject) {
  if (process.env.MONGODB_URI) {
    project.provide('mongodbUri', process.env.MONGODB_URI);
    return;
  }
  const version = FERRETDB_VERSION;
  console.log(`[test] preparing FerretDB ${version} (built once into .tools/bin)`);
  const binary = await ensureFerretdbBinary(PROJECT_ROOT, version);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-test-db-'));
  const db: EmbeddedDatabase = await startFerretdb({ binary, dataDir: dir });
  console.log(`[test] FerretDB listening on 127.0.0.1:${db.port}`);
  project.provide('mongodbUri', db.uri);
  return async () => {
    await db.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
