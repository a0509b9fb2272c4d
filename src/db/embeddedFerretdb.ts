import { spawn, type ChildProcess, execFile } from 'node:child_process';
import { createHash, randomInt } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../logger.ts';

const run = promisify(execFile);

/**
 * The embedded database: FerretDB 1.x (MongoDB wire protocol, SQLite storage), built once from the Go
 * module proxy into `.tools/bin`, run on loopback only, with telemetry and the debug listener off.
 */
export class EmbeddedDatabaseUnavailable extends Error {
  constructor(reason: string) {
    super(
      `${reason}\n` +
        'The embedded database (FerretDB) is built with the Go toolchain, which this machine lacks. Either:\n' +
        '  - install Go (https://go.dev/doc/install) and run `npm start` again, or\n' +
        '  - point Slipway at a MongoDB server: MONGODB_URI=mongodb://127.0.0.1:27017 npm start, or\n' +
        '  - run MongoDB and Slipway together with `docker compose up`.',
    );
    this.name = 'EmbeddedDatabaseUnavailable';
  }
}

/** The FerretDB release the embedded database is built from; tools/ferretdb/go.mod pins the same version. */
export const FERRETDB_VERSION = 'v1.24.2';

/**
 * Slipway's patches to FerretDB (tools/ferretdb/patches/*.patch, applied in name order before compiling):
 * `_id` lookups use the `_id` index, equalities on indexed fields are pushed down to SQLite, and so are
 * sort, skip, limit and count when one index covers the filter and the sort; such counts are kept per
 * collection write generation until the next write; a unique index stays FerretDB's own (a second,
 * non-unique index serves the pushdown), so that what is a duplicate is exactly what FerretDB says; and a
 * query read through an index still returns documents in the table's order; and nothing is tracked for
 * leaks (a finalizer per iterator) outside debug builds. Each file says what and why;
 * test/db/differential.test.ts checks that the patched build answers as FerretDB 1.24.2 does.
 */
export interface FerretdbPatchSet {
  files: string[];
  /** The first 12 hex digits of the SHA-256 of the patches' names and contents: part of the binary's name. */
  id: string;
}

export function ferretdbPatchSet(rootDir: string): FerretdbPatchSet {
  const dir = path.join(rootDir, 'tools', 'ferretdb', 'patches');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.patch'))
    .sort()
    .map((f) => path.join(dir, f));
  const hash = createHash('sha256');
  for (const file of files) hash.update(path.basename(file)).update('\0').update(readFileSync(file)).update('\0');
  return { files, id: hash.digest('hex').slice(0, 12) };
}

/**
 * No patches: FerretDB as released. Built beside the patched one (`ensureFerretdbBinary(…, { unpatched: true })`)
 * for the differential test (test/db/differential.test.ts), which checks that Slipway's patches change
 * no answer of the database.
 */
export const UNPATCHED_FERRETDB: FerretdbPatchSet = { files: [], id: 'unpatched' };

/**
 * `ferretdb-<version>-slipway.<patch set id>` (`ferretdb-<version>-unpatched` without patches): a build of
 * other (or no) patches is never reused.
 */
export function ferretdbBuildName(version: string, patches: FerretdbPatchSet): string {
  return patches.files.length === 0 ? `ferretdb-${version}-unpatched` : `ferretdb-${version}-slipway.${patches.id}`;
}

export function ferretdbBinaryPath(toolsDir: string, version: string, patches: FerretdbPatchSet): string {
  return path.join(toolsDir, 'bin', ferretdbBuildName(version, patches));
}

/** The patched source the binary is compiled from (kept: scripts/ferretdb-go-test.sh runs its tests). */
export function ferretdbSourceDir(toolsDir: string, version: string, patches: FerretdbPatchSet): string {
  return path.join(toolsDir, 'src', ferretdbBuildName(version, patches));
}

async function hasGo(): Promise<boolean> {
  try {
    await run('go', ['version']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns the path of the FerretDB binary, building it first if it is not cached in `toolsDir`
 * (default `<rootDir>/.tools`). The pinned module (tools/ferretdb) is read from `rootDir`. With
 * `unpatched`, FerretDB as released (no Slipway patches), cached under its own name.
 */
export async function ensureFerretdbBinary(
  rootDir: string,
  version: string,
  logger?: Logger,
  toolsDir = path.join(rootDir, '.tools'),
  options: { unpatched?: boolean } = {},
): Promise<string> {
  const patches = options.unpatched ? UNPATCHED_FERRETDB : ferretdbPatchSet(rootDir);
  const binary = ferretdbBinaryPath(toolsDir, version, patches);
  if (existsSync(binary)) return binary;
  if (!(await hasGo())) throw new EmbeddedDatabaseUnavailable('No MONGODB_URI is set and `go` is not on PATH.');

  const moduleDir = path.join(rootDir, 'tools', 'ferretdb');
  // Never let the build fetch a toolchain or talk to anything but the module proxy; the pinned go.sum
  // verifies what is downloaded.
  const env = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false -mod=mod', CGO_ENABLED: '0' };
  logger?.info({ version }, 'building the embedded database (FerretDB) once; this takes a few minutes');
  const started = Date.now();
  logger?.info({ step: '1/3' }, 'downloading the pinned FerretDB module from the Go module proxy');
  const { stdout } = await run('go', ['mod', 'download', '-json', 'github.com/FerretDB/FerretDB'], {
    cwd: moduleDir,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  const downloaded = JSON.parse(stdout) as { Dir?: string; Version?: string; Error?: string };
  if (!downloaded.Dir || downloaded.Version !== version) {
    throw new Error(`could not download FerretDB ${version}: ${downloaded.Error ?? `got ${downloaded.Version}`}`);
  }
  const srcDir = ferretdbSourceDir(toolsDir, version, patches);
  logger?.info({ step: '2/3', patches: patches.files.map((f) => path.basename(f)) }, patches.files.length ? 'preparing the FerretDB source and applying Slipway\'s patches' : 'preparing the FerretDB source (unpatched)');
  await rm(srcDir, { recursive: true, force: true });
  await mkdir(path.dirname(srcDir), { recursive: true });
  await cp(downloaded.Dir, srcDir, { recursive: true });
  await chmod(srcDir, 0o755);
  await run('chmod', ['-R', 'u+w', srcDir]);
  await applyPatches(srcDir, patches);
  // Module archives do not carry the generated version file that FerretDB's own release build writes
  // (its build/version package documents writing it by hand).
  await writeFile(path.join(srcDir, 'build', 'version', 'version.txt'), `${version}\n`);
  await mkdir(path.dirname(binary), { recursive: true });
  const tmp = `${binary}.tmp-${process.pid}`;
  logger?.info({ step: '3/3' }, 'compiling FerretDB (the longest step)');
  await run('go', ['build', '-trimpath', '-o', tmp, './cmd/ferretdb'], {
    cwd: srcDir,
    env: { ...env, GOFLAGS: '-buildvcs=false' },
    maxBuffer: 16 * 1024 * 1024,
  });
  await rename(tmp, binary);
  logger?.info({ version, seconds: Math.round((Date.now() - started) / 1000) }, 'embedded database built');
  return binary;
}

/**
 * Applies each patch with `git apply`, checking first that it applies cleanly. The source may sit inside
 * a git checkout (`.tools/` of this one): GIT_CEILING_DIRECTORIES keeps git from treating the patch's
 * paths as relative to that checkout's root.
 */
async function applyPatches(srcDir: string, patches: FerretdbPatchSet): Promise<void> {
  const env = { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(srcDir) };
  for (const file of patches.files) {
    try {
      await run('git', ['apply', '--check', file], { cwd: srcDir, env });
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr ?? String(err);
      throw new Error(`the FerretDB patch ${path.basename(file)} does not apply cleanly to ${path.basename(srcDir)}:\n${stderr}`, { cause: err });
    }
    await run('git', ['apply', file], { cwd: srcDir, env });
  }
}

/**
 * A loopback port free now, for a listener started a moment later. Taken below the system's ephemeral
 * range where the system says what it is (Linux): a port the system hands out for `listen(0)` comes
 * from the range its outgoing connections use too, so one of them (to the database, say) could take it
 * between this check and the listen. Elsewhere, or when nothing is free there, what `listen(0)` gives.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  if (below !== undefined && below > PORT_FLOOR + 1000) {
    for (let i = 0; i < 20; i++) {
      const port = PORT_FLOOR + randomInt(below - PORT_FLOOR);
      if (await canListen(port)) return port;
    }
  }
  return await listenOnce(0);
}

/** Ports below this are left to services a machine may run. */
const PORT_FLOOR = 10_000;

function ephemeralRangeStart(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

async function canListen(port: number): Promise<boolean> {
  return await listenOnce(port).then(
    () => true,
    () => false,
  );
}

/** Listens on 127.0.0.1:`port` and closes again; the port it had. */
async function listenOnce(port: number): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`FerretDB exited with code ${child.exitCode} while starting`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`FerretDB did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

export interface EmbeddedDatabase {
  uri: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
  /** SIGKILL, as a crash would (fault tests); resolves once the process is gone. */
  kill(): Promise<void>;
}

export async function startFerretdb(options: {
  binary: string;
  dataDir: string;
  port?: number;
  logger?: Logger;
  /**
   * SQLite `synchronous` (default `normal`). FerretDB 1.24 passes `_pragma` query parameters of its
   * `--sqlite-url` to every connection it opens and adds WAL journaling itself
   * (internal/backends/sqlite/metadata/pool/uri.go). With WAL, `normal` syncs at checkpoints instead of
   * at every commit: the files stay consistent, the last transactions may be lost on power loss.
   */
  synchronous?: 'normal' | 'full';
  /** FerretDB's own log level (default `error`); at `debug` it logs every SQL statement it runs. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Receives FerretDB's output as it comes (besides the logger's debug lines). */
  onOutput?: (chunk: string) => void;
}): Promise<EmbeddedDatabase> {
  const port = options.port ?? (await freePort());
  await mkdir(options.dataDir, { recursive: true });
  const sqliteUrl = `file:${options.dataDir.replace(/\/?$/, '/')}?_pragma=synchronous(${options.synchronous ?? 'normal'})`;
  const child = spawn(
    options.binary,
    [
      '--handler=sqlite',
      `--sqlite-url=${sqliteUrl}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--telemetry=disable',
      '--debug-addr=-',
      `--state-dir=${options.dataDir}`,
      `--log-level=${options.logLevel ?? 'error'}`,
    ],
    // GOGC 400 (Go's default is 100): the heap may grow to five times what is live before a collection, so
    // the garbage collector runs a quarter as often; FerretDB's live heap is a few MiB. GOGC set for the
    // whole process wins.
    { stdio: ['ignore', 'pipe', 'pipe'], env: { GOGC: '400', ...process.env, FERRETDB_TELEMETRY: 'disable', DO_NOT_TRACK: '1' } },
  );
  const forward = (chunk: Buffer) => {
    options.onOutput?.(chunk.toString());
    const text = chunk.toString().trim();
    if (text) options.logger?.debug({ component: 'ferretdb' }, text.slice(0, 2000));
  };
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  await waitForPort(port, child, 20_000);
  let stopped: Promise<void> | undefined;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    port,
    pid: child.pid!,
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      });
      return stopped;
    },
  };
}
