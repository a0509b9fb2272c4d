import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import type { Logger } from '../logger.ts';
import { freePort } from './embeddedFerretdb.ts';

const run = promisify(execFile);

/**
 * A second engine that behaves like MongoDB where the embedded FerretDB 1.24 does not (unique indexes,
 * arrays): PostgreSQL with Microsoft's DocumentDB extension, behind FerretDB 2 as its MongoDB wire front.
 * The extensions are built from the sources vendored in third_party/documentdb/ (scripts/documentdb-build.sh)
 * and FerretDB 2 from the Go module proxy, once, into `.tools/documentdb/<build id>/`; PostgreSQL itself and
 * the libraries come from Debian's packages. `slipway db documentdb start|stop --dir DIR` runs one with its
 * data under DIR, both servers on free loopback ports.
 */

/** The one FerretDB 2 release the Go module proxy serves; it pairs with DocumentDB 0.107. */
export const DOCUMENTDB_FERRETDB_VERSION = 'v2.7.0';
/** Debian 12 offers PostgreSQL 15 only (DocumentDB supports 15 to 17). */
export const DOCUMENTDB_PG_MAJOR = '15';
const PG_BIN = `/usr/lib/postgresql/${DOCUMENTDB_PG_MAJOR}/bin`;

/** What the build and the server need from Debian (rum and PostGIS are extensions DocumentDB requires). */
export const DOCUMENTDB_PACKAGES = [
  `postgresql-${DOCUMENTDB_PG_MAJOR}`,
  `postgresql-server-dev-${DOCUMENTDB_PG_MAJOR}`,
  `postgresql-${DOCUMENTDB_PG_MAJOR}-rum`,
  `postgresql-${DOCUMENTDB_PG_MAJOR}-postgis-3`,
  'libbson-dev',
  'libpcre2-dev',
  'libintelrdfpmath-dev',
  'libkrb5-dev',
  'pkg-config',
  'make',
  'gcc',
];

/** Something the engine needs is missing; the message says what to do. The CLI exits with 2. */
export class DocumentdbUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentdbUnavailable';
  }
}

/**
 * The build's id: the first 12 hex digits of the SHA-256 of the vendored files, the build script and the
 * versions. A change to any of them builds anew beside the old build (never over it).
 */
export function documentdbBuildId(rootDir: string): string {
  const hash = createHash('sha256');
  const vendor = path.join(rootDir, 'third_party', 'documentdb');
  const files = readdirSync(vendor)
    .filter((f) => f.endsWith('.tgz') || f === 'SHA256SUMS')
    .sort()
    .map((f) => path.join(vendor, f));
  for (const file of [...files, path.join(rootDir, 'scripts', 'documentdb-build.sh')])
    hash.update(path.basename(file)).update('\0').update(readFileSync(file)).update('\0');
  hash.update(DOCUMENTDB_FERRETDB_VERSION).update('\0').update(DOCUMENTDB_PG_MAJOR);
  return hash.digest('hex').slice(0, 12);
}

const isRoot = () => process.getuid?.() === 0;

function stderrOf(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr || e.message || String(err)).trim();
}

async function missingPackages(): Promise<string[]> {
  try {
    await run('dpkg-query', ['--version']);
  } catch {
    throw new DocumentdbUnavailable(`The DocumentDB engine is built from Debian packages (${DOCUMENTDB_PACKAGES.join(' ')}), and this machine has no dpkg. Run it on Debian 12 (or point MONGODB_URI at a MongoDB server).`);
  }
  const missing: string[] = [];
  for (const pkg of DOCUMENTDB_PACKAGES) {
    const status = await run('dpkg-query', ['-W', '-f=${Status}', pkg]).then(
      (r) => r.stdout,
      () => '',
    );
    if (!status.includes('install ok installed')) missing.push(pkg);
  }
  return missing;
}

/** Installs missing Debian packages as root (waiting for another apt's lock), or says the command to run. */
async function ensurePackages(logger?: Logger): Promise<void> {
  const missing = await missingPackages();
  if (!missing.length) return;
  const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (!isRoot()) throw new DocumentdbUnavailable(`The DocumentDB engine needs Debian packages this machine lacks: ${missing.join(', ')}.\nInstall them as root, then run this command again:\n  sudo apt-get update && sudo ${command}`);
  const apt = ['-o', 'DPkg::Lock::Timeout=600'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  logger?.info({ packages: missing }, 'installing Debian packages (apt-get)');
  try {
    await run('apt-get', [...apt, 'update', '-qq'], { env, maxBuffer: 64 * 1024 * 1024 });
    await run('apt-get', [...apt, 'install', '-y', '-qq', '--no-install-recommends', ...missing], { env, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    throw new DocumentdbUnavailable(`apt-get could not install ${missing.join(', ')}:\n${stderrOf(err).slice(-2000)}`);
  }
}

async function hasGo(): Promise<boolean> {
  return await run('go', ['version']).then(
    () => true,
    () => false,
  );
}

export interface DocumentdbBuild {
  id: string;
  /** `.tools/documentdb/<id>`: `stage/` (the extensions in PostgreSQL's paths), `bin/ferretdb`, `build.log`. */
  dir: string;
  ferretdb: string;
}

/**
 * Makes sure the engine can run: Debian packages (installed as root), the extensions built and copied into
 * PostgreSQL's directories, FerretDB 2 built. Each step is skipped when already done for this build id.
 */
export async function ensureDocumentdbEngine(rootDir: string, toolsDir: string, logger?: Logger): Promise<DocumentdbBuild> {
  await ensurePackages(logger);
  const id = documentdbBuildId(rootDir);
  const dir = path.join(toolsDir, 'documentdb', id);
  const stage = path.join(dir, 'stage');
  const ferretdb = path.join(dir, 'bin', 'ferretdb');
  await mkdir(dir, { recursive: true });

  if (!existsSync(stage)) {
    logger?.info({ id }, 'building the PostgreSQL extensions (DocumentDB, pg_cron, pgvector) once; about a minute');
    const started = Date.now();
    const tmp = `${stage}.tmp-${process.pid}`;
    await rm(tmp, { recursive: true, force: true });
    const log = path.join(dir, 'build.log');
    try {
      const { stderr } = await run('bash', [path.join(rootDir, 'scripts', 'documentdb-build.sh'), tmp], { cwd: rootDir, maxBuffer: 64 * 1024 * 1024 });
      await writeFile(log, stderr);
    } catch (err) {
      await writeFile(log, stderrOf(err));
      await rm(tmp, { recursive: true, force: true });
      throw new Error(`building the DocumentDB extensions failed (see ${log}):\n${stderrOf(err).slice(-3000)}`, { cause: err });
    }
    await rename(tmp, stage);
    logger?.info({ seconds: Math.round((Date.now() - started) / 1000) }, 'extensions built');
  }

  if (!existsSync(ferretdb)) {
    if (!(await hasGo())) throw new DocumentdbUnavailable('FerretDB 2 is built with the Go toolchain, and `go` is not on PATH. Install Go (https://go.dev/doc/install) and run this command again.');
    logger?.info({ version: DOCUMENTDB_FERRETDB_VERSION }, 'building FerretDB 2 from the Go module proxy once; about a minute');
    const started = Date.now();
    const gobin = path.join(dir, `bin.tmp-${process.pid}`);
    // Never fetch a toolchain; the module proxy's checksum database verifies what is downloaded.
    const env = { ...process.env, GOBIN: gobin, GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false', CGO_ENABLED: '0' };
    try {
      await run('go', ['install', '-trimpath', `github.com/FerretDB/FerretDB/v2/cmd/ferretdb@${DOCUMENTDB_FERRETDB_VERSION}`], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
    } catch (err) {
      await rm(gobin, { recursive: true, force: true });
      throw new Error(`building FerretDB ${DOCUMENTDB_FERRETDB_VERSION} failed:\n${stderrOf(err).slice(-3000)}`, { cause: err });
    }
    await mkdir(path.dirname(ferretdb), { recursive: true });
    await rename(path.join(gobin, 'ferretdb'), ferretdb);
    await rm(gobin, { recursive: true, force: true });
    logger?.info({ seconds: Math.round((Date.now() - started) / 1000) }, 'FerretDB 2 built');
  }

  await installExtensions(id, stage, logger);
  return { id, dir, ferretdb };
}

/** Copies the staged extensions into PostgreSQL's directories, unless this build is the one installed. */
async function installExtensions(id: string, stage: string, logger?: Logger): Promise<void> {
  const { stdout } = await run(path.join(PG_BIN, 'pg_config'), ['--sharedir']);
  const stamp = path.join(stdout.trim(), 'extension', 'slipway-documentdb.id');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === id) return;
  if (!isRoot())
    throw new DocumentdbUnavailable(`The DocumentDB extensions are built but not installed into PostgreSQL's directories. As root, run:\n  sudo cp -a ${stage}/. / && echo ${id} | sudo tee ${stamp}\nthen this command again.`);
  logger?.info({ id }, "installing the extensions into PostgreSQL's directories");
  await installTree(stage, '/');
  await writeFile(stamp, `${id}\n`);
}

/**
 * Copies every file of `from` to the same path under `to`, each through a temporary name and a rename:
 * a PostgreSQL already running with an older build keeps the libraries it mapped (overwriting a mapped
 * library in place could crash it) and picks up the new ones at its next start.
 */
async function installTree(from: string, to: string): Promise<void> {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      await mkdir(target, { recursive: true });
      await installTree(source, target);
    } else {
      const tmp = `${target}.slipway-${process.pid}`;
      await cp(source, tmp, { force: true, preserveTimestamps: true });
      await rename(tmp, target);
    }
  }
}

// ---- running one ------------------------------------------------------------------------------------------

interface EngineState {
  build: string;
  postgres_port: number;
  ferretdb_port: number;
  ferretdb_pid: number;
  ferretdb_binary: string;
  mongodb_uri: string;
}

export interface DocumentdbEngine {
  mongodb_uri: string;
  dir: string;
  postgres_port: number;
  ferretdb_port: number;
  /** Set when the engine was already running under this DIR and answered. */
  already_running?: boolean;
}

const paths = (dir: string) => ({
  data: path.join(dir, 'pgdata'),
  socket: path.join(dir, 'run'),
  password: path.join(dir, 'postgres.password'),
  pgLog: path.join(dir, 'postgresql.log'),
  ferretdbLog: path.join(dir, 'ferretdb.log'),
  ferretdbState: path.join(dir, 'ferretdb-state'),
  state: path.join(dir, 'engine.json'),
});

/** A PostgreSQL program: as the `postgres` user when root (PostgreSQL refuses to run as root). */
async function pg(program: string, args: string[], options: { cwd?: string } = {}): Promise<string> {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', path.join(PG_BIN, program), ...args]] : [path.join(PG_BIN, program), args];
  try {
    const { stdout } = await run(file, argv, { cwd: options.cwd ?? '/', maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    throw new Error(`${program} failed: ${stderrOf(err).slice(-3000)}`, { cause: err });
  }
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    throw new DocumentdbUnavailable(`There is no \`postgres\` user, which PostgreSQL runs as when started by root (it comes with the postgresql-${DOCUMENTDB_PG_MAJOR} package).`);
  }
}

/** Makes `target` (and the files of the engine in it) the `postgres` user's when root. */
async function giveToPostgres(...targets: string[]): Promise<void> {
  if (!isRoot()) return;
  const { uid, gid } = await postgresUser();
  for (const target of targets) await chown(target, uid, gid);
}

async function initCluster(dir: string, logger?: Logger): Promise<void> {
  const p = paths(dir);
  logger?.info({ data: p.data }, 'creating the PostgreSQL cluster (initdb)');
  await mkdir(p.data, { recursive: true, mode: 0o700 });
  // The password of the `postgres` role, for FerretDB's TCP connection; local socket connections (in a
  // directory only the owner may enter) are trusted.
  await writeFile(p.password, randomBytes(24).toString('base64url'), { mode: 0o600 });
  await giveToPostgres(p.data, p.password);
  await pg('initdb', ['-D', p.data, '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${p.password}`]);
  await writeFile(path.join(p.data, 'postgresql.conf'), "\n# Slipway's settings, rewritten at every `slipway db documentdb start`\ninclude = 'slipway.conf'\n", { flag: 'a' });
}

/**
 * The settings Slipway owns (`pgdata/slipway.conf`, written at every start): loopback only on `port`, the
 * socket in DIR/run, the extensions DocumentDB needs preloaded, its background worker. pg_cron and
 * DocumentDB connect back to the server with libpq; they do so through the socket, which is trusted
 * (only the cluster's owner may enter its directory), so they need no password.
 */
async function writeSettings(dir: string, port: number, durable: boolean): Promise<void> {
  const p = paths(dir);
  if (/[\s'"\\]/.test(p.socket)) throw new DocumentdbUnavailable(`--dir must not contain spaces, quotes or backslashes: ${dir}`);
  const settings = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${p.socket}'`,
    "shared_preload_libraries = 'pg_cron,pg_documentdb_core,pg_documentdb'",
    "cron.database_name = 'postgres'",
    `cron.host = '${p.socket}'`,
    `documentdb.localhost_connection_string = 'host=${p.socket}'`,
    'documentdb.enableBackgroundWorker = true',
    'documentdb.enableBackgroundWorkerJobs = true',
    'ssl = off',
    // For tests and CI only (`--no-fsync`): commits do not wait for the disk; a crash of the machine
    // may lose or corrupt the cluster.
    ...(durable ? [] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
    '',
  ].join('\n');
  const file = path.join(p.data, 'slipway.conf');
  await writeFile(file, settings, { mode: 0o600 });
  await giveToPostgres(file);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The process `pid` is the FerretDB we started (not another process that got its id since). */
function isOurFerretdb(state: EngineState): boolean {
  if (!alive(state.ferretdb_pid)) return false;
  try {
    return readFileSync(`/proc/${state.ferretdb_pid}/cmdline`, 'utf8').split('\0')[0] === state.ferretdb_binary;
  } catch {
    return true;
  }
}

async function ping(uri: string, timeoutMs: number): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  try {
    await client.db('admin').command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function readState(dir: string): Promise<EngineState | null> {
  const file = paths(dir).state;
  if (!existsSync(file)) return null;
  return JSON.parse(await readFile(file, 'utf8')) as EngineState;
}

function tail(file: string, chars = 2000): string {
  try {
    return readFileSync(file, 'utf8').slice(-chars);
  } catch {
    return '';
  }
}

/**
 * Starts PostgreSQL (initdb on first use) and FerretDB 2 with their data and logs under `dir`, each on a
 * free loopback port, and resolves once FerretDB answers a ping. Both keep running after this process
 * exits; `stopDocumentdb` stops them.
 */
export async function startDocumentdb(options: {
  rootDir: string;
  toolsDir: string;
  dir: string;
  logger?: Logger;
  /** false: PostgreSQL does not wait for the disk (fsync off), for tests and CI. Default true. */
  durable?: boolean;
}): Promise<DocumentdbEngine> {
  const dir = path.resolve(options.dir);
  const p = paths(dir);
  const logger = options.logger;
  const previous = await readState(dir);
  if (previous && isOurFerretdb(previous) && (await ping(previous.mongodb_uri, 2000)))
    return { mongodb_uri: previous.mongodb_uri, dir, postgres_port: previous.postgres_port, ferretdb_port: previous.ferretdb_port, already_running: true };
  // Whatever a previous start left running (FerretDB gone but PostgreSQL up, or a start cut short).
  if (previous || existsSync(path.join(p.data, 'postmaster.pid'))) await stopDocumentdb({ dir });

  const build = await ensureDocumentdbEngine(options.rootDir, options.toolsDir, logger);
  const created = !existsSync(dir);
  await mkdir(dir, { recursive: true });
  if (isRoot()) {
    // The postgres user must reach DIR's files: DIR made here is open to enter (not to list or write).
    if (created) await chmod(dir, 0o711);
    const { uid } = await postgresUser();
    const reachable = await run('runuser', ['-u', 'postgres', '--', 'test', '-x', dir]).then(
      () => true,
      () => false,
    );
    if (!reachable) throw new DocumentdbUnavailable(`PostgreSQL runs as the \`postgres\` user (uid ${uid}), which cannot enter ${dir}. Use a directory it can reach (e.g. under /var/tmp), or \`chmod o+x\` it and each of its parents.`);
  }
  if (!existsSync(path.join(p.data, 'PG_VERSION'))) await initCluster(dir, logger);
  await mkdir(p.socket, { recursive: true, mode: 0o700 });
  await giveToPostgres(p.socket);
  if (!existsSync(p.pgLog)) await writeFile(p.pgLog, '', { mode: 0o600 });
  await giveToPostgres(p.pgLog);

  const postgresPort = await freePort();
  await writeSettings(dir, postgresPort, options.durable ?? true);
  logger?.info({ port: postgresPort }, 'starting PostgreSQL');
  try {
    await pg('pg_ctl', ['start', '-D', p.data, '-l', p.pgLog, '-w', '-t', '120']);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${tail(p.pgLog)}`, { cause: err });
  }
  try {
    await pg('psql', ['-h', p.socket, '-p', String(postgresPort), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-qc', 'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE']);

    const ferretdbPort = await freePort();
    const password = (await readFile(p.password, 'utf8')).trim();
    await mkdir(p.ferretdbState, { recursive: true, mode: 0o700 });
    const out = openSync(p.ferretdbLog, 'a', 0o600);
    logger?.info({ port: ferretdbPort, version: DOCUMENTDB_FERRETDB_VERSION }, 'starting FerretDB 2');
    // The PostgreSQL URL (with its password) goes through the environment, not the process list.
    const child = spawn(
      build.ferretdb,
      [`--listen-addr=127.0.0.1:${ferretdbPort}`, '--no-auth', '--telemetry=disable', '--debug-addr=-', `--state-dir=${p.ferretdbState}`, '--log-level=warn'],
      {
        detached: true,
        stdio: ['ignore', out, out],
        env: {
          ...process.env,
          FERRETDB_POSTGRESQL_URL: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${postgresPort}/postgres`,
          FERRETDB_TELEMETRY: 'disable',
          DO_NOT_TRACK: '1',
        },
      },
    );
    closeSync(out);
    child.unref();
    const uri = `mongodb://127.0.0.1:${ferretdbPort}/`;
    const state: EngineState = { build: build.id, postgres_port: postgresPort, ferretdb_port: ferretdbPort, ferretdb_pid: child.pid!, ferretdb_binary: build.ferretdb, mongodb_uri: uri };
    await writeFile(p.state, JSON.stringify(state, null, 2));

    const deadline = Date.now() + 60_000;
    while (!(await ping(uri, 1000))) {
      if (!alive(child.pid!)) throw new Error(`FerretDB 2 exited while starting:\n${tail(p.ferretdbLog)}`);
      if (Date.now() > deadline) throw new Error(`FerretDB 2 did not answer a ping on 127.0.0.1:${ferretdbPort} within 60 s:\n${tail(p.ferretdbLog)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { mongodb_uri: uri, dir, postgres_port: postgresPort, ferretdb_port: ferretdbPort };
  } catch (err) {
    await stopDocumentdb({ dir }).catch(() => undefined);
    throw err;
  }
}

async function postgresRunning(data: string): Promise<boolean> {
  return await pg('pg_ctl', ['status', '-D', data]).then(
    () => true,
    () => false,
  );
}

/** Stops FerretDB 2 and PostgreSQL started under `dir` (whatever of them is running). */
export async function stopDocumentdb(options: { dir: string }): Promise<{ stopped: string[] }> {
  const dir = path.resolve(options.dir);
  const p = paths(dir);
  const stopped: string[] = [];
  const state = await readState(dir);
  if (state && isOurFerretdb(state)) {
    process.kill(state.ferretdb_pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (alive(state.ferretdb_pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (alive(state.ferretdb_pid)) process.kill(state.ferretdb_pid, 'SIGKILL');
    stopped.push('ferretdb');
  }
  // A postmaster.pid left by a crash names no running server: pg_ctl status tells (exit 3 when none).
  if (existsSync(path.join(p.data, 'postmaster.pid')) && (await postgresRunning(p.data))) {
    await pg('pg_ctl', ['stop', '-D', p.data, '-m', 'fast', '-w', '-t', '60']);
    stopped.push('postgresql');
  }
  await rm(p.state, { force: true });
  return { stopped };
}

/** `dir` holds an engine's data (a cluster made by `startDocumentdb`). */
export function isDocumentdbDir(dir: string): boolean {
  try {
    return statSync(path.join(dir, 'pgdata', 'PG_VERSION')).isFile();
  } catch {
    return false;
  }
}
