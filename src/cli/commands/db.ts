import path from 'node:path';
import { Argument, type Command } from 'commander';
import { loadConfig } from '../../config/index.ts';
import { DOCUMENTDB_FERRETDB_VERSION, startDocumentdb, stopDocumentdb } from '../../db/documentdb.ts';
import { FERRETDB_VERSION, UNPATCHED_FERRETDB, ensureFerretdbBinary, ferretdbPatchSet, ferretdbSourceDir } from '../../db/embeddedFerretdb.ts';
import { leaf, output, withRuntime, type JsonOption } from '../command.ts';
import { progressLogger, withHeartbeat } from '../io.ts';

/** `slipway db …`: the database's indexes (through the container), the embedded FerretDB, the DocumentDB engine. */
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

  documentdbCommands(db);
}

interface DirOption extends JsonOption {
  dir: string;
  /** false under --no-fsync. */
  fsync: boolean;
}

/**
 * `slipway db documentdb start|stop --dir DIR`: PostgreSQL + DocumentDB behind FerretDB 2
 * (src/db/documentdb.ts). One leaf with the action as its argument, as every command is a leaf of its group.
 */
function documentdbCommands(db: Command): void {
  leaf(db, 'documentdb', 'a MongoDB-compatible engine on PostgreSQL (DocumentDB behind FerretDB 2): start builds it once into .tools/, starts it with its data under --dir and prints its MONGODB_URI; stop stops it')
    .addArgument(new Argument('<action>', 'start or stop').choices(['start', 'stop']))
    .requiredOption('--dir <dir>', 'where the data, logs and state of this engine live')
    .option('--no-fsync', 'start: PostgreSQL does not wait for the disk (tests and CI only: a crash of the machine may lose or corrupt the data)')
    .action(async (action: 'start' | 'stop', o: DirOption) => {
      if (action === 'stop') {
        const result = await stopDocumentdb({ dir: o.dir });
        output(o.json, { ok: true, ...result }, result.stopped.length ? `stopped: ${result.stopped.join(', ')}` : 'nothing was running');
        return;
      }
      const config = loadConfig();
      const { logger, progress } = progressLogger();
      const started = Date.now();
      const engine = await withHeartbeat(startDocumentdb({ rootDir: config.rootDir, toolsDir: config.toolsDir, dir: o.dir, logger, durable: o.fsync }), (s) => progress(`still preparing the DocumentDB engine (${s} s)…`));
      output(
        o.json,
        { ...engine, ferretdb_version: DOCUMENTDB_FERRETDB_VERSION, seconds: Math.round((Date.now() - started) / 1000) },
        `${engine.already_running ? 'already running' : 'started'}: MONGODB_URI=${engine.mongodb_uri}\n(stop it with \`slipway db documentdb stop --dir ${engine.dir}\`)`,
      );
    });
}
