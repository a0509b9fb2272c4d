/**
 * What a newcomer does, in a fresh directory outside the repository: install the SDK from a checkout
 * with the README's own command, run the README's quick start against the live server, then the same
 * from the release tarball `npm pack` makes (kept in SDK_ARTIFACTS_DIR when CI sets it).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { harness } from './support/env.ts';
import { REPO_ROOT } from './support/harness.ts';

const run = promisify(execFile);
const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');

/** The text of a `## heading` section of the README, up to the next `## `. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`README has no "${heading}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}
const blocks = (markdown: string, language: string) => [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);

/** The environment without the settings of an npm that may have started this suite. */
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

async function sh(command: string, cwd: string): Promise<{ stdout: string; seconds: number }> {
  const started = performance.now();
  try {
    const { stdout } = await run('sh', ['-c', command], { cwd, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
    return { stdout, seconds: (performance.now() - started) / 1000 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`\`${command}\` failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, { cause: err });
  }
}

async function newApp(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir), private: true, type: 'module' }));
  return dir;
}

it('a fresh directory installs the SDK from a checkout exactly as the README says, and from the npm pack tarball; the README quick start runs against the live server each time', { timeout: 600_000 }, async () => {
  const readme = await readFile(path.join(PACKAGE_DIR, 'README.md'), 'utf8');
  const commands = blocks(section(readme, '## Install'), 'sh').flatMap((b) => b.split('\n')).filter((line) => line.startsWith('npm install'));
  const fromCheckout = commands.find((c) => c.startsWith('npm install ../slipway/'));
  const fromTarball = commands.find((c) => /^npm install \.\/slipway-sdk-[0-9.]+\.tgz$/.test(c));
  expect(fromCheckout, 'the README installs from ../slipway/…').toBe('npm install ../slipway/sdk/typescript');
  expect(fromTarball, 'the README installs the tarball').toBeDefined();
  const [quickStart] = blocks(section(readme, '## Quick start'), 'ts');
  expect(quickStart).toContain("from '@slipway/sdk'");

  const info = harness();
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'slipway-sdk-ts-install-'));
  expect(path.relative(REPO_ROOT, tmp).startsWith('..')).toBe(true);
  try {
    // A checkout of the repository as a newcomer has it: sources, no node_modules, no dist.
    const checkout = path.join(tmp, 'slipway', 'sdk', 'typescript');
    await cp(PACKAGE_DIR, checkout, {
      recursive: true,
      filter: (source) => !/[\\/](node_modules|dist)$|\.tgz$/.test(source),
    });
    expect(existsSync(path.join(checkout, 'dist'))).toBe(false);

    const quickStartRuns = async (app: string) => {
      await writeFile(path.join(app, 'deploy.mjs'), quickStart!);
      // The Node running this suite (the SDK supports Node ≥ 20), plain JavaScript, no build step.
      const { stdout } = await run(process.execPath, ['deploy.mjs'], { cwd: app, env: { ...cleanEnv(), SLIPWAY_URL: info.base_url, SLIPWAY_API_KEY: info.api_key.key } });
      expect(stdout.trim()).toMatch(new RegExp(`^deployment dep_\\w+ of ${info.project.name} is building$`));
      return stdout.trim();
    };

    // 1. From the checkout: npm links the folder; `prepare` installs its build dependencies and builds dist/.
    const app = await newApp(path.join(tmp, 'app'));
    const linked = await sh(fromCheckout!, app);
    expect(existsSync(path.join(checkout, 'dist', 'index.js'))).toBe(true);
    console.log(`${fromCheckout} (first time: npm ci + tsc in the checkout) took ${linked.seconds.toFixed(1)} s; quick start on Node ${process.version}: ${await quickStartRuns(app)}`);

    // 2. The release tarball, as CI packs it.
    const release = path.join(tmp, 'release');
    await mkdir(release);
    const packed = await sh(`npm pack --json --pack-destination ${JSON.stringify(release)}`, checkout);
    const [manifest] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { name: string; version: string; filename: string; files: { path: string }[] }[];
    const pkg = JSON.parse(await readFile(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string; slipway: { apiVersion: string } };
    expect(manifest).toMatchObject({ name: '@slipway/sdk', version: pkg.version, filename: `slipway-sdk-${pkg.version}.tgz` });
    expect(fromTarball).toBe(`npm install ./${manifest!.filename}`);
    const { stdout: listing } = await run('tar', ['-tzf', path.join(release, manifest!.filename)]);
    const files = listing.split('\n').filter(Boolean);
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/resources/deployments.js', 'dist/resources/deployments.d.ts', 'dist/generated/meta.js', 'dist/generated/openapi.d.ts', 'README.md', 'LICENSE', 'package.json']) {
      expect(files).toContain(`package/${file}`);
    }
    expect(files.filter((f) => /^package\/(src|test|scripts|node_modules)\//.test(f))).toEqual([]);

    const fromRelease = await newApp(path.join(tmp, 'app-tarball'));
    await copyFile(path.join(release, manifest!.filename), path.join(fromRelease, manifest!.filename));
    const installed = await sh(fromTarball!, fromRelease);
    const installedDir = path.join(fromRelease, 'node_modules', '@slipway', 'sdk');
    expect((await lstat(installedDir)).isSymbolicLink()).toBe(false);
    const installedPkg = JSON.parse(await readFile(path.join(installedDir, 'package.json'), 'utf8')) as typeof pkg;
    expect(installedPkg.slipway.apiVersion).toBe(pkg.slipway.apiVersion);
    console.log(`${fromTarball} (${files.length} files) took ${installed.seconds.toFixed(1)} s; quick start: ${await quickStartRuns(fromRelease)}`);

    if (process.env.SDK_ARTIFACTS_DIR) {
      await mkdir(process.env.SDK_ARTIFACTS_DIR, { recursive: true });
      await copyFile(path.join(release, manifest!.filename), path.join(process.env.SDK_ARTIFACTS_DIR, manifest!.filename));
      console.log(`release artifact: ${path.join(process.env.SDK_ARTIFACTS_DIR, manifest!.filename)}`);
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});
