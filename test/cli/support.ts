/**
 * The user CLI (`cli/`) as a person gets it: copied out of the repository with the TypeScript SDK
 * beside it (no node_modules, no dist), installed with the README's own commands into an empty
 * prefix, then run as `slip` in a process of its own with HOME set to an empty folder.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { NODE } from '../support/processes.ts';
import { tempDir } from '../support/tempDirs.ts';

const run = promisify(execFile);

/** The environment without the settings of an npm that may have started this suite. */
const npmFree = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

/** The `sh` block of a README section (`## Install`), line by line. */
export function readmeCommands(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no "${heading}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section);
  if (!block) throw new Error(`"${heading}" has no sh block`);
  return block[1]!.split('\n').filter((line) => line.trim() !== '');
}

export interface InstalledCli {
  /** The `slip` that `npm install -g .` put in the prefix's bin/. */
  bin: string;
  /** A folder holding only `node` (Node 24): PATH for runs that must find no keychain tool nor browser. */
  nodeOnlyPath: string;
  commands: string[];
  seconds: number;
}

export async function installCli(): Promise<InstalledCli> {
  const root = tempDir('slipway-cli-install-');
  const checkout = path.join(root, 'slipway');
  const skip = (source: string) => !/[\\/](node_modules|dist)$|\.tgz$/.test(source);
  await cp(path.join(PROJECT_ROOT, 'cli'), path.join(checkout, 'cli'), { recursive: true, filter: skip });
  await cp(path.join(PROJECT_ROOT, 'sdk', 'typescript'), path.join(checkout, 'sdk', 'typescript'), { recursive: true, filter: skip });
  const prefix = path.join(root, 'prefix');
  await mkdir(prefix);
  const commands = readmeCommands(await readFile(path.join(PROJECT_ROOT, 'cli', 'README.md'), 'utf8'), '## Install');
  const started = performance.now();
  // Node 24 first on PATH (the CLI supports Node ≥ 20; the machine's own may be older still).
  const env = { ...npmFree(), PATH: `${path.dirname(NODE)}${path.delimiter}${process.env.PATH ?? ''}`, NPM_CONFIG_PREFIX: prefix, NPM_CONFIG_UPDATE_NOTIFIER: 'false' };
  for (const command of commands) {
    const cd = /^cd (\S+)$/.exec(command);
    if (cd) continue; // every command runs in the checkout's cli/
    try {
      await run('sh', ['-c', command], { cwd: path.join(checkout, 'cli'), env, maxBuffer: 16 * 1024 * 1024 });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`\`${command}\` failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, { cause: err });
    }
  }
  const bin = path.join(prefix, 'bin', 'slip');
  if (!existsSync(bin)) throw new Error(`the README's install left no ${bin}`);
  const nodeOnlyPath = path.join(root, 'node-only');
  await mkdir(nodeOnlyPath);
  await symlink(NODE, path.join(nodeOnlyPath, 'node'));
  return { bin, nodeOnlyPath, commands, seconds: (performance.now() - started) / 1000 };
}

export interface SlipRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SlipOptions {
  home: string;
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
}

/** Runs `slip ARGS` to its end with only the environment given (HOME, PATH with node only, and `env`). */
export function slip(cli: InstalledCli, args: string[], options: SlipOptions): Promise<SlipRun> & { child: ReturnType<typeof spawn>; stderrSoFar(): string } {
  const child = spawn(cli.bin, args, {
    env: { HOME: options.home, PATH: cli.nodeOnlyPath, ...options.env },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin!.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<SlipRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`slip ${args.join(' ')} still running after ${options.timeoutMs ?? 30_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return Object.assign(done, { child, stderrSoFar: () => stderr });
}
