import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config/index.ts';
import { FERRETDB_VERSION, UNPATCHED_FERRETDB, ensureFerretdbBinary, ferretdbPatchSet, ferretdbSourceDir } from '../../db/embeddedFerretdb.ts';
import { leaf, output, withRuntime, type JsonOption } from '../command.ts';
import { progressLogger, withHeartbeat } from '../io.ts';

/** `slipway db …`: the database's indexes (through the container) and the embedded FerretDB. */
export function dbCommands(program: Command): void {
  const db = program.command('db').description('the database: indexes and the embedded FerretDB');

  leaf(db, 'migrate', 'create or update every index (idempotent)').action(async (o: JsonOption) => {
    const { progress } = progressLogger();
    progress('creating and updating indexes…');
    // The container does not migrate on opening here: this command does it, with its heartbeat.
    const result = await withRuntime((rt) => withHeartbeat(rt.migrate(), (s) => progress(`still migrating (${s} s)…`)), { migrate: false });
    progress(`indexes are up to date (${result.collections.length} collections)`);
    output(o.json, { ok: true, ...result }, `indexes are up to date (${result.collections.length} collections)`);
  });

  leaf(db, 'build-embedded', 'build the embedded database (FerretDB) now instead of at the first start')
    .option('--unpatched', 'build FerretDB as released, without Slipway\'s patches (the differential test compares the two)')
    .action(async (o: JsonOption & { unpatched?: boolean }) => {
    const config = loadConfig();
    const { logger, progress } = progressLogger();
    const started = Date.now();
    const unpatched = o.unpatched === true;
    const binary = await withHeartbeat(ensureFerretdbBinary(config.rootDir, FERRETDB_VERSION, logger, config.toolsDir, { unpatched }), (s) => progress(`still building FerretDB ${FERRETDB_VERSION} (${s} s)…`));
    const patches = unpatched ? UNPATCHED_FERRETDB : ferretdbPatchSet(config.rootDir);
    output(
      o.json,
      {
        ok: true,
        binary,
        version: FERRETDB_VERSION,
        patches: patches.files.map((f) => path.basename(f)),
        source: ferretdbSourceDir(config.toolsDir, FERRETDB_VERSION, patches),
        seconds: Math.round((Date.now() - started) / 1000),
      },
      `embedded database ready: ${binary}`,
    );
  });
}
