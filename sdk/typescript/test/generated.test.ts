import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { API_VERSION, Slipway, VERSION } from '../src/index.ts';
import { harness } from './support/env.ts';

const run = promisify(execFile);
const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');
const GENERATED_DIRS = ['generated', 'resources'];

/** Every file of the generated folders, by path relative to `root`. */
async function filesOf(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const dir of GENERATED_DIRS) {
    for (const name of (await readdir(path.join(root, dir))).sort()) files.set(`${dir}/${name}`, await readFile(path.join(root, dir, name), 'utf8'));
  }
  return files;
}

it('the checked-in generated code (types, resources, versions, error codes) is exactly what scripts/generate.sh makes from the live /openapi.json', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-sdk-ts-gen-'));
  try {
    await run('sh', [path.join(PACKAGE_DIR, 'scripts', 'generate.sh'), harness().base_url, dir], { cwd: PACKAGE_DIR });
    const [fresh, checkedIn] = await Promise.all([filesOf(dir), filesOf(path.join(PACKAGE_DIR, 'src'))]);
    expect([...fresh.keys()]).toEqual(expect.arrayContaining(['generated/openapi.ts', 'generated/meta.ts', 'resources/index.ts', 'resources/projects.ts']));
    // On failure: run `sh scripts/generate.sh <base url>` against a current server and commit the result.
    expect([...checkedIn.keys()], 'files in src/generated or src/resources that the generator does not make (or misses)').toEqual([...fresh.keys()]);
    const stale = [...fresh].filter(([file, text]) => checkedIn.get(file) !== text).map(([file]) => file);
    expect(stale, 'stale generated files: regenerate them with scripts/generate.sh').toEqual([]);
    for (const [file, text] of checkedIn) {
      if (file.startsWith('resources/') || file === 'generated/meta.ts') expect(text.startsWith('// File generated from our OpenAPI document'), file).toBe(true);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('the SDK states the API version it targets: API_VERSION and package.json "slipway.apiVersion" are the served document\'s info.version', async () => {
  const info = harness();
  const document = (await (await fetch(info.openapi_url)).json()) as { info: { version: string } };
  const pkg = JSON.parse(await readFile(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string; slipway: { apiVersion: string } };
  console.log(`@slipway/sdk ${VERSION} targets Slipway API ${API_VERSION}; the live server's document is ${document.info.version}`);
  expect(API_VERSION).toBe(document.info.version);
  expect(pkg.slipway.apiVersion).toBe(API_VERSION);
  expect(VERSION).toBe(pkg.version);
});

it('the tree is flat and has exactly the decided namespaces and methods (the same in the Python and Go SDKs)', () => {
  const client = new Slipway({ baseUrl: 'http://127.0.0.1:1', apiKey: 'slw_x' });
  // A namespace's methods, its hand-written subclass's included (deploymentLogs.follow), not the base's plumbing.
  const methodsOf = (namespace: object) => {
    const names = new Set<string>();
    for (let proto = Object.getPrototypeOf(namespace) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
      for (const name of Object.getOwnPropertyNames(proto)) if (!['constructor', 'call', 'paginate'].includes(name)) names.add(name);
    }
    return [...names].sort();
  };
  const tree = Object.fromEntries(
    Object.entries(client)
      .filter(([, value]) => typeof value === 'object' && value !== null)
      .map(([name, value]) => [name, methodsOf(value as object)]),
  );
  expect(tree).toEqual({
    projects: ['create', 'delete', 'get', 'list', 'listAll', 'update'],
    deployments: ['create', 'get', 'getConfiguration', 'list', 'listAll', 'listAllReviews', 'listReviews', 'redeploy', 'review', 'update'],
    deploymentLogs: ['append', 'follow', 'read'],
    environments: ['create', 'delete', 'get', 'list', 'listAll', 'lock', 'rollback', 'unlock', 'update'],
    trustPolicies: ['create', 'delete', 'get', 'list', 'listAll'],
    configurations: ['create', 'delete', 'get', 'list', 'listAll', 'update'],
    apiKeys: ['create', 'get', 'list', 'listAll', 'revoke', 'rotate'],
    users: ['changePassword', 'create', 'delete', 'get', 'list', 'listAll', 'me', 'update'],
    accounts: ['list', 'listAll'],
    oauthClients: ['create', 'delete', 'get', 'list', 'listAll', 'rotateSecret'],
    events: ['list', 'listAll'],
    webhooks: ['create', 'delete', 'get', 'list', 'listAll', 'listAllDeliveries', 'listDeliveries', 'ping', 'redeliver', 'rotateSecret', 'update'],
  });
});
