/**
 * The user CLI `slip` (cli/, PRODUCT.md §12), installed from a copy of the checkout with its README's
 * commands into an empty prefix and run as a child process against the real server: API-key scripts
 * (projects, deploy --wait, deployments, env), the credential stores (a 0600 file, a refusal when no
 * keychain answers and the file is not allowed), the exit codes, the help's examples, and the device
 * sign-in (run only when the server offers the device authorization endpoint), and a CI job's OIDC token
 * exchanged for each command (from a variable, a file, or a GitHub-Actions-shaped token service).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embeddedFerretdb.ts';
import { exportJWK } from 'jose';
import { dpopProof, newDpopKey } from '../support/dpop.ts';
import { makeClient } from '../support/factories.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import { authorizeOverHttp } from '../support/oauthDriver.ts';
import { startTestIssuer, type TestIssuer } from '../support/oidcIssuer.ts';
import { tempDir } from '../support/tempDirs.ts';
import { installCli, slip, type InstalledCli, type SlipOptions } from './support.ts';

// Loopback CI issuers may be trusted here (the CI token exchange below).
const env = useApiServer({ overrides: { federationAllowLoopback: true } });
let cli: InstalledCli;
let project: { id: string; name: string };
let apiKey: string;

async function newKey(projectId: string, scopes: string[]): Promise<string> {
  const res = await env.api.post(`/v1/projects/${projectId}/api_keys`, { token: env.adminToken, body: { name: `cli ${Date.now()}`, scopes } });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

/** A person's machine: an empty HOME (so an empty config folder), nothing of the suite's environment. */
function home(): string {
  return tempDir('slipway-cli-home-');
}

/** `slip` with SLIPWAY_URL and the API key of the test's project. */
function scripted(args: string[], extra: Partial<SlipOptions> = {}) {
  return slip(cli, args, { home: home(), ...extra, env: { SLIPWAY_URL: env.server.url, SLIPWAY_TOKEN: apiKey, ...extra.env } });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CLI's JSON output, checked field by field
const json = <T = any>(text: string): T => JSON.parse(text) as T;

beforeAll(async () => {
  cli = await installCli();
  console.log(`installed slip with the README's commands (${cli.commands.join(' && ')}) in ${cli.seconds.toFixed(1)} s`);
  // Named as in the help's examples, so they run as they are (see the last test).
  project = await createProject(env.api, env.adminToken, { name: 'checkout' });
  apiKey = await newKey(project.id, ['read', 'write']);
}, 300_000);

describe('scripts with SLIPWAY_URL and SLIPWAY_TOKEN (an API key)', () => {
  it('projects --json lists the key’s project; the table shows it by name', async () => {
    const listed = await scripted(['projects', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(json(listed.stdout).map((p: { id: string }) => p.id)).toEqual([project.id]);
    const table = await scripted(['projects']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^ID\\s+NAME\\s+STATUS\\s+TARGET\\n${project.id}\\s+checkout\\s+active`));
  });

  it('deploy --wait --json follows the deployment the deployer moves to succeeded, prints it once, exit 0', async () => {
    const run = scripted(['deploy', '--project', 'checkout', '--env', 'production', '--branch', 'main', '--commit', '3f2a9c1', '--wait', '--json', '--poll', '0.1']);
    const deployment = await waitForDeployment(project.id, 'main', '3f2a9c1');
    for (const status of ['building', 'deploying', 'succeeded']) {
      const res = await env.api.patch(`/v1/projects/${project.id}/deployments/${deployment.id}`, { token: apiKey, body: { status, ...(status === 'succeeded' ? { url: 'https://checkout.example.com' } : {}) } });
      expect(res.status).toBe(200);
    }
    const done = await run;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe(''); // no progress with --json
    expect(json(done.stdout)).toMatchObject({ id: deployment.id, status: 'succeeded', environment: 'production', branch: 'main', commit_sha: '3f2a9c1', url: 'https://checkout.example.com' });
  });

  it('deploy --wait without --json shows each status as it changes; a failed deployment exits 6', async () => {
    const run = scripted(['deploy', '-p', project.id, '-e', 'staging', '-b', 'feature/x', '--wait', '--poll', '0.1']);
    const deployment = await waitForDeployment(project.id, 'feature/x');
    await env.api.patch(`/v1/projects/${project.id}/deployments/${deployment.id}`, { token: apiKey, body: { status: 'building' } });
    await waitFor(() => run.stderrSoFar().includes('building'));
    await env.api.patch(`/v1/projects/${project.id}/deployments/${deployment.id}`, { token: apiKey, body: { status: 'failed', status_message: 'tests failed' } });
    const done = await run;
    expect(done.code).toBe(6);
    expect(done.stderr.split('\n').filter(Boolean)).toEqual([`${deployment.id}: queued`, `${deployment.id}: building`, `${deployment.id}: failed — tests failed`]);
    expect(done.stdout).toBe(`${deployment.id} feature/x → staging: failed (tests failed)\n`);
  });

  it('deployments list / get / cancel --json', async () => {
    const created = await scripted(['deploy', '-p', 'checkout', '-e', 'preview', '-b', 'fix/cancel-me', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const deployment = json(created.stdout);
    expect(deployment).toMatchObject({ status: 'queued', environment: 'preview', branch: 'fix/cancel-me' });

    const listed = await scripted(['deployments', 'list', '-p', 'checkout', '-e', 'preview', '--json']);
    expect(listed.code).toBe(0);
    expect(json(listed.stdout).map((d: { id: string }) => d.id)).toEqual([deployment.id]);

    const got = await scripted(['deployments', 'get', deployment.id, '-p', 'checkout', '--json']);
    expect(json(got.stdout)).toEqual(deployment);

    const canceled = await scripted(['deployments', 'cancel', deployment.id, '-p', 'checkout', '-m', 'wrong branch', '--json']);
    expect(canceled.code, canceled.stderr).toBe(0);
    expect(json(canceled.stdout)).toMatchObject({ id: deployment.id, status: 'canceled', status_message: 'wrong branch' });
    const read = await env.api.get(`/v1/projects/${project.id}/deployments/${deployment.id}`, { token: apiKey });
    expect(read.body.status).toBe('canceled');

    // A deployment that has finished cannot be canceled: the API's invalid_transition, exit 4.
    const finished = await env.api.post(`/v1/projects/${project.id}/deployments`, { token: apiKey, body: { environment: 'preview', branch: 'fix/done' } });
    await env.api.patch(`/v1/projects/${project.id}/deployments/${finished.body.id}`, { token: apiKey, body: { status: 'failed' } });
    const again = await scripted(['deployments', 'cancel', finished.body.id, '-p', 'checkout', '--json']);
    expect(again.code).toBe(4);
    expect(json(again.stderr).error).toMatchObject({ code: 'invalid_transition', exit_code: 4 });
    expect(again.stdout).toBe('');
  });

  it('env set / list / unset --json, a secret read from standard input and never printed back', async () => {
    const set = await scripted(['env', 'set', 'LOG_LEVEL', 'debug', '-p', 'checkout', '-e', 'qa', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(json(set.stdout)).toMatchObject({ key: 'LOG_LEVEL', value: 'debug', environment: 'qa', secret: false });
    const changed = await scripted(['env', 'set', 'LOG_LEVEL', 'info', '-p', 'checkout', '-e', 'qa', '--json']);
    expect(json(changed.stdout)).toMatchObject({ id: json(set.stdout).id, value: 'info' });

    const secretValue = `postgres://app:${Date.now()}@db/checkout`;
    const secret = await scripted(['env', 'set', 'DATABASE_URL', '--secret', '-p', 'checkout', '-e', 'qa', '--json'], { input: `${secretValue}\n` });
    expect(secret.code, secret.stderr).toBe(0);
    expect(json(secret.stdout)).toMatchObject({ key: 'DATABASE_URL', secret: true, value: null });
    expect(secret.stdout + secret.stderr).not.toContain(secretValue);

    const listed = await scripted(['env', 'list', '-p', 'checkout', '-e', 'qa', '--json']);
    expect(json(listed.stdout).map((c: { key: string; value: string | null }) => [c.key, c.value])).toEqual([
      ['DATABASE_URL', null],
      ['LOG_LEVEL', 'info'],
    ]);
    const table = await scripted(['env', 'list', '-p', 'checkout', '-e', 'qa']);
    expect(table.stdout).toMatch(/qa\s+DATABASE_URL\s+\(secret\)\n/);
    expect(table.stdout).not.toContain(secretValue);
    // The stored value is the one given on standard input (without its trailing newline).
    const revealed = await env.api.get(`/v1/projects/${project.id}/configurations?environment=qa&reveal=true`, { token: env.adminToken });
    expect(revealed.body.data.find((c: { key: string }) => c.key === 'DATABASE_URL').value).toBe(secretValue);

    const unset = await scripted(['env', 'unset', 'LOG_LEVEL', '-p', 'checkout', '-e', 'qa', '--json']);
    expect(unset.code).toBe(0);
    expect(json(unset.stdout)).toMatchObject({ key: 'LOG_LEVEL', deleted: true });
    const after = await scripted(['env', 'list', '-p', 'checkout', '-e', 'qa', '--json']);
    expect(json(after.stdout).map((c: { key: string }) => c.key)).toEqual(['DATABASE_URL']);
    const missing = await scripted(['env', 'unset', 'LOG_LEVEL', '-p', 'checkout', '-e', 'qa']);
    expect(missing.code).toBe(4);
  });

  it('whoami with an API key names its project and where the credentials come from', async () => {
    const who = await scripted(['whoami', '--json']);
    expect(who.code, who.stderr).toBe(0);
    expect(json(who.stdout)).toEqual({ url: env.server.url, credentials: 'env', stored_in: null, user: null, projects: [{ id: project.id, name: 'checkout' }] });
  });
});

describe('credential stores', () => {
  it('login --with-token keeps the token in a file only the user can read (0600 in a 0700 folder), says so, and later commands use it; logout forgets it', async () => {
    const h = home();
    const login = await slip(cli, ['login', '--with-token', '--url', env.server.url], { home: h, input: `${apiKey}\n` });
    expect(login.code, login.stderr).toBe(0);
    const file = path.join(h, '.config', 'slipway', 'credentials.json');
    expect(login.stderr).toContain(`Credentials stored in the file ${file} (mode 0600, readable by you alone) — no OS keychain answered: secret-tool (libsecret) is not installed.`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(json(readFileSync(file, 'utf8')).servers[env.server.url]).toMatchObject({ kind: 'token', token: apiKey });

    // No SLIPWAY_URL, no SLIPWAY_TOKEN: the server signed in to last, the stored token.
    const projects = await slip(cli, ['projects', '--json'], { home: h });
    expect(projects.code, projects.stderr).toBe(0);
    expect(json(projects.stdout).map((p: { id: string }) => p.id)).toEqual([project.id]);
    const who = await slip(cli, ['whoami', '--json'], { home: h });
    expect(json(who.stdout)).toMatchObject({ credentials: 'token', stored_in: 'file' });

    const logout = await slip(cli, ['logout'], { home: h });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toContain(`Forgot the token stored for ${env.server.url}`);
    expect(existsSync(file)).toBe(false);
    const after = await slip(cli, ['projects'], { home: h });
    expect(after.code).toBe(3);
    expect(after.stderr).toContain(`Not signed in to ${env.server.url}`);
  });

  it('with no keychain and the file store not allowed, login refuses to store (exit 5) and writes nothing; by flag or by SLIPWAY_CREDENTIAL_STORE', async () => {
    const ways: { args: string[]; env: Record<string, string> }[] = [{ args: ['--store', 'keychain'], env: {} }, { args: [], env: { SLIPWAY_CREDENTIAL_STORE: 'keychain' } }];
    for (const how of ways) {
      const h = home();
      const refused = await slip(cli, ['login', '--with-token', '--url', env.server.url, ...how.args], { home: h, input: apiKey, env: how.env });
      expect(refused.code).toBe(5);
      expect(refused.stderr).toContain('No OS keychain answered (secret-tool (libsecret) is not installed) and the file store is not allowed');
      expect(refused.stderr).toContain('Nothing was saved.');
      expect(existsSync(path.join(h, '.config', 'slipway'))).toBe(false);
    }
  });

  /**
   * A stand-in for libsecret's `secret-tool` on PATH (this machine has no Secret Service): it keeps
   * secrets in a folder by their attributes and logs every command line, so the test sees what the CLI
   * asks of a keychain and that no secret is ever on a command line. `broken` answers as secret-tool
   * does without a D-Bus session.
   */
  function fakeSecretTool(broken: boolean): { pathDir: string; keyring: string; argvLog: string } {
    const dir = tempDir('slipway-cli-keyring-');
    const keyring = path.join(dir, 'keyring');
    mkdirSync(keyring);
    const argvLog = path.join(dir, 'argv.log');
    const script = `#!/usr/bin/env node
const fs = require('node:fs'), path = require('node:path');
const [cmd, ...rest] = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(argvLog)}, JSON.stringify(process.argv.slice(2)) + '\\n');
if (${broken}) { process.stderr.write('Cannot autolaunch D-Bus without X11 $DISPLAY\\n'); process.exit(1); }
const attrs = rest.filter((a) => !a.startsWith('--'));
const file = path.join(${JSON.stringify(keyring)}, Buffer.from(attrs.join('\\0')).toString('base64url'));
if (cmd === 'store') { fs.writeFileSync(file, fs.readFileSync(0)); process.exit(0); }
if (cmd === 'lookup') { if (!fs.existsSync(file)) process.exit(1); process.stdout.write(fs.readFileSync(file)); process.exit(0); }
if (cmd === 'clear') { fs.rmSync(file, { force: true }); process.exit(0); }
process.exit(2);
`;
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'secret-tool'), script, { mode: 0o755 });
    symlinkSync(path.join(cli.nodeOnlyPath, 'node'), path.join(bin, 'node'));
    return { pathDir: bin, keyring, argvLog };
  }

  it('where the Secret Service answers, login keeps the credentials in the keychain (secret on stdin, never on a command line), says so, and logout clears them', async () => {
    const h = home();
    const keychain = fakeSecretTool(false);
    const withKeychain = { PATH: keychain.pathDir };
    const login = await slip(cli, ['login', '--with-token', '--url', env.server.url], { home: h, input: apiKey, env: withKeychain });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('Credentials stored in the OS keychain (Secret Service, through secret-tool).');
    expect(existsSync(path.join(h, '.config', 'slipway', 'credentials.json'))).toBe(false);
    const [secret] = readdirSync(keychain.keyring);
    expect(json(readFileSync(path.join(keychain.keyring, secret!), 'utf8'))).toMatchObject({ url: env.server.url, kind: 'token', token: apiKey });
    expect(readFileSync(keychain.argvLog, 'utf8')).not.toContain(apiKey);
    expect(readFileSync(keychain.argvLog, 'utf8')).toContain(JSON.stringify(['store', `--label=Slipway CLI (${env.server.url})`, 'service', 'slipway-cli', 'server', env.server.url]));

    const who = await slip(cli, ['whoami', '--json'], { home: h, env: withKeychain });
    expect(json(who.stdout)).toMatchObject({ credentials: 'token', stored_in: 'keychain', projects: [{ id: project.id }] });
    const logout = await slip(cli, ['logout'], { home: h, env: withKeychain });
    expect(logout.code).toBe(0);
    expect(readdirSync(keychain.keyring)).toEqual([]);
  });

  it('where secret-tool is there but no Secret Service answers, login says why and uses the file; with the file not allowed it refuses (exit 5)', async () => {
    const broken = { PATH: fakeSecretTool(true).pathDir };
    const h = home();
    const login = await slip(cli, ['login', '--with-token', '--url', env.server.url], { home: h, input: apiKey, env: broken });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain('no OS keychain answered: no Secret Service answered (Cannot autolaunch D-Bus without X11 $DISPLAY)');
    expect(statSync(path.join(h, '.config', 'slipway', 'credentials.json')).mode & 0o777).toBe(0o600);
    const refused = await slip(cli, ['login', '--with-token', '--url', env.server.url, '--store', 'keychain'], { home: home(), input: apiKey, env: broken });
    expect(refused.code).toBe(5);
  });

  it('a credentials file that others can read is refused (exit 5), not used', async () => {
    const h = home();
    const dir = path.join(h, '.config', 'slipway');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'credentials.json');
    writeFileSync(file, JSON.stringify({ servers: { [env.server.url]: { url: env.server.url, kind: 'token', token: apiKey, storedAt: new Date().toISOString() } } }));
    chmodSync(file, 0o644);
    const refused = await slip(cli, ['projects', '--url', env.server.url], { home: h });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('can be read by others (mode 0644): refusing to use it');
    chmodSync(file, 0o600);
    const accepted = await slip(cli, ['projects', '--url', env.server.url, '--json'], { home: h });
    expect(accepted.code, accepted.stderr).toBe(0);
  });
});

describe('exit codes', () => {
  it('0 help, 2 usage, 3 not signed in or refused, 4 refused request, 1 unreachable server', async () => {
    const h = home();
    expect((await slip(cli, ['--help'], { home: h })).code).toBe(0);
    const version = await slip(cli, ['--version'], { home: h });
    expect(version.stdout.trim()).toBe(json(readFileSync(path.join(import.meta.dirname, '../../cli/package.json'), 'utf8')).version);

    const unknown = await slip(cli, ['deploy', '--no-such-option'], { home: h, env: { SLIPWAY_URL: env.server.url } });
    expect(unknown.code).toBe(2);
    expect((await slip(cli, ['frobnicate'], { home: h })).code).toBe(2);
    expect((await slip(cli, ['deploy', '-p', 'checkout', '-e', 'production'], { home: h })).code).toBe(2); // no --branch
    expect((await slip(cli, ['projects'], { home: h })).code).toBe(2); // which server?
    expect((await slip(cli, ['deployments', 'list', '-p', 'checkout', '-n', 'many'], { home: h, env: { SLIPWAY_URL: env.server.url, SLIPWAY_TOKEN: apiKey } })).code).toBe(2);

    const notSignedIn = await slip(cli, ['projects', '--url', env.server.url], { home: h });
    expect(notSignedIn.code).toBe(3);
    const badKey = await slip(cli, ['projects', '--json'], { home: h, env: { SLIPWAY_URL: env.server.url, SLIPWAY_TOKEN: 'slw_not_a_real_key_0000000000000000' } });
    expect(badKey.code).toBe(3);
    expect(json(badKey.stderr).error.exit_code).toBe(3);

    const missing = await scripted(['deployments', 'get', 'dep_doesnotexist0000', '-p', 'checkout']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/^slip: .*\(not_found\)/);
    const unknownProject = await scripted(['deployments', 'list', '-p', 'no-such-project']);
    expect(unknownProject.code).toBe(4);

    const closed = await freePort();
    const unreachable = await slip(cli, ['projects', '--url', `http://127.0.0.1:${closed}`], { home: h, env: { SLIPWAY_TOKEN: apiKey } });
    expect(unreachable.code).toBe(1);
  });

  it('logout when signed in nowhere says so and succeeds', async () => {
    const out = await slip(cli, ['logout', '--url', env.server.url, '--json'], { home: home() });
    expect(out.code).toBe(0);
    expect(json(out.stdout)).toEqual({ url: env.server.url, signed_out: false, revoked: false });
  });
});

it('the examples in --help run as they are (those that name nothing of another machine)', async () => {
  const commands = [[], ['projects'], ['deploy'], ['deployments', 'list'], ['env', 'list'], ['env', 'set'], ['env', 'unset']];
  const ran: string[] = [];
  for (const command of commands) {
    const help = await slip(cli, [...command, '--help'], { home: home() });
    expect(help.code).toBe(0);
    const examples = [...help.stdout.matchAll(/^ {2}\$ (slip .*)$/gm)].map((m) => m[1]!);
    expect(examples.length, `slip ${command.join(' ')} --help has examples`).toBeGreaterThan(0);
    // Runnable as they are: no placeholder ids, no other server, no shell syntax.
    for (const example of examples.filter((e) => !/dep_123|acct_|example\.com|[$|"'…]|--wait/.test(e))) {
      const args = example.split(/\s+/).slice(1);
      const done = await scripted(args);
      expect(done.code, `${example}\n${done.stderr}`).toBe(0);
      ran.push(example);
    }
  }
  expect(ran).toEqual(expect.arrayContaining(['slip projects', 'slip deploy --project checkout --env production --branch main', 'slip env set LOG_LEVEL debug --project checkout --env staging', 'slip env unset LOG_LEVEL --project checkout --env staging']));
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitForDeployment(projectId: string, branch: string, commit?: string): Promise<{ id: string; created_by: { type: string; id: string } }> {
  let found: { id: string; created_by: { type: string; id: string } } | undefined;
  await waitFor(async () => {
    const res = await env.api.get(`/v1/projects/${projectId}/deployments?branch=${encodeURIComponent(branch)}`, { token: apiKey });
    found = res.body.data.find((d: { commit_sha: string | null; status: string }) => d.status === 'queued' && (commit === undefined || d.commit_sha === commit));
    return found !== undefined;
  });
  return found!;
}

describe('a stored DPoP-bound sign-in (as login stores it)', () => {
  /**
   * DPoP-bound tokens of the owner for a public client, got here through the authorization code flow
   * (the device flow is server work still to come), stored as `login` stores its own.
   */
  async function signedIn(h: string) {
    const { client } = await makeClient(env.server, { account_id: env.owner.accountId, client_name: 'Terminal test', redirect_uris: ['http://127.0.0.1:9/callback'], dpop_bound_access_tokens: true });
    const clientId = client._id as string;
    const key = await newDpopKey();
    const { callback, verifier } = await authorizeOverHttp({ issuer: env.server.issuer, clientId, redirectUri: 'http://127.0.0.1:9/callback', scope: 'read write', email: env.owner.email, password: env.owner.password });
    const tokenUrl = `${env.server.issuer}/token`;
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: 'http://127.0.0.1:9/callback', code_verifier: verifier, client_id: clientId });
    let nonce: string | undefined;
    let res: Response;
    for (let attempt = 0; ; attempt += 1) {
      res = await fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await dpopProof(key, { htm: 'POST', htu: tokenUrl, ...(nonce ? { nonce } : {}) }) }, body: form });
      nonce = res.headers.get('dpop-nonce') ?? undefined;
      if (res.status !== 400 || !nonce || attempt > 0) break;
    }
    const body = (await res.json()) as { access_token: string; refresh_token: string; expires_in: number; scope: string; token_type: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.token_type).toBe('DPoP');
    const stored = {
      url: env.server.url,
      kind: 'oauth',
      clientId,
      tokens: { accessToken: body.access_token, refreshToken: body.refresh_token, expiresAt: Date.now() + body.expires_in * 1000, scope: body.scope, tokenType: body.token_type },
      dpopKey: await exportJWK(key.privateKey),
      user: { id: env.owner.id, email: env.owner.email },
      account: { id: env.owner.accountId },
      storedAt: new Date().toISOString(),
    };
    const dir = path.join(h, '.config', 'slipway');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, 'credentials.json');
    const write = (credentials: typeof stored) => writeFileSync(file, JSON.stringify({ servers: { [env.server.url]: credentials } }), { mode: 0o600 });
    write(stored);
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ url: env.server.url }));
    return { stored, file, write };
  }

  it('commands send DPoP proofs with the stored key, refresh an expired token (several at once too) and store it; logout revokes the refresh token', async () => {
    const h = home();
    const { stored, file, write } = await signedIn(h);

    const who = await slip(cli, ['whoami', '--json'], { home: h });
    expect(who.code, who.stderr).toBe(0);
    expect(json(who.stdout)).toMatchObject({ url: env.server.url, credentials: 'oauth', stored_in: 'file', user: { id: env.owner.id, email: env.owner.email } });
    const accounts = await slip(cli, ['accounts', '--json'], { home: h });
    expect(accounts.code, accounts.stderr).toBe(0);
    expect(json(accounts.stdout)).toEqual([expect.objectContaining({ account_id: env.owner.accountId, current: true })]);
    // The same token without a proof of the key: refused.
    expect((await fetch(`${env.server.url}/v1/users/me`, { headers: { authorization: `Bearer ${stored.tokens.accessToken}` } })).status).toBe(401);

    // Expired: refreshed with a proof of the same key, the new access token stored.
    write({ ...stored, tokens: { ...stored.tokens, expiresAt: 0 } });
    const projects = await slip(cli, ['projects', '--json'], { home: h });
    expect(projects.code, projects.stderr).toBe(0);
    expect(json(projects.stdout).map((p: { id: string }) => p.id)).toContain(project.id);
    const refreshed = json(readFileSync(file, 'utf8')).servers[env.server.url];
    expect(refreshed.tokens.accessToken).not.toBe(stored.tokens.accessToken);
    expect(refreshed.tokens.refreshToken).toBe(stored.tokens.refreshToken); // bound: not rotated
    expect(refreshed.tokens.expiresAt).toBeGreaterThan(Date.now());
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // Several commands at once, all finding it expired: each refreshes (a bound refresh token does not
    // rotate, so none ends the grant) and the file stays whole (each writes a file of its own and renames it).
    write({ ...refreshed, tokens: { ...refreshed.tokens, expiresAt: 0 } });
    const together = await Promise.all(Array.from({ length: 6 }, () => slip(cli, ['whoami', '--json'], { home: h })));
    expect(together.map((r) => [r.code, r.stderr])).toEqual(Array.from({ length: 6 }, () => [0, '']));
    const after = json(readFileSync(file, 'utf8')).servers[env.server.url];
    expect(after.tokens.expiresAt).toBeGreaterThan(Date.now());

    // Logout revokes the refresh token: a copy kept aside (with its key) no longer works.
    const logout = await slip(cli, ['logout', '--json'], { home: h });
    expect(logout.code, logout.stderr).toBe(0);
    expect(json(logout.stdout)).toEqual({ url: env.server.url, signed_out: true, revoked: true });
    expect(existsSync(file)).toBe(false);
    write({ ...after, tokens: { ...after.tokens, expiresAt: 0 } }); // what a copy kept aside would hold
    const revoked = await slip(cli, ['whoami', '--json'], { home: h });
    expect(revoked.code).toBe(3);
    expect(json(revoked.stderr).error).toMatchObject({ code: 'invalid_grant', exit_code: 3 });
  });
});

describe('slip login: the device authorization grant (RFC 8628) of the client slipway-cli, DPoP-bound tokens', () => {
  /** The device authorization endpoint the server's discovery announces, if any. */
  async function deviceEndpoint(): Promise<string | undefined> {
    const res = await fetch(`${env.server.url}/oauth/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { device_authorization_endpoint?: string }).device_authorization_endpoint;
  }

  it('login prints the URL and code, a person allows it in the browser; the DPoP-bound tokens and their key are stored, refreshed when expired, useless as Bearer; logout revokes them', { timeout: 120_000 }, async () => {
    expect(await deviceEndpoint()).toBe(`${env.server.issuer}/device/auth`);
    const { launchBrowser } = await import('../support/browser.ts');
    const browser = await launchBrowser();
    try {
      const h = home();
      const login = slip(cli, ['login', '--url', env.server.url, '--no-browser', '--store', 'file', '--json'], { home: h, timeoutMs: 90_000 });
      let complete = '';
      await waitFor(() => {
        complete = /\(or open (\S+), which carries the code\)/.exec(login.stderrSoFar())?.[1] ?? '';
        return complete !== '';
      }, 15_000);
      const code = /enter the code (\S+)/.exec(login.stderrSoFar())![1]!;
      expect(code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);

      const page = await browser.newPage();
      await page.goto(complete);
      // The code form, the sign-in and the confirm page, in whatever order the server shows them, until
      // a page with none of them (the end page).
      for (let step = 0; step < 8; step += 1) {
        if ((await page.locator('input[name="email"]').count()) > 0) {
          await page.getByLabel('Email').fill(env.owner.email);
          await page.getByLabel('Password').fill(env.owner.password);
          await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
        } else if ((await page.getByRole('button', { name: 'Allow' }).count()) > 0) {
          await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Allow' }).click()]);
        } else if ((await page.locator('input[name="user_code"]').count()) > 0) {
          expect(await page.locator('input[name="user_code"]').inputValue()).toBe(code);
          await Promise.all([page.waitForLoadState('load'), page.locator('form:has(input[name="user_code"]) [type="submit"]').first().click()]);
        } else {
          break;
        }
      }
      const endPage = `${page.url()}: ${(await page.locator('body').innerText()).slice(0, 300)}`;
      const done = await login;
      expect(done.code, `${done.stderr}\nthe browser ended at ${endPage}`).toBe(0);
      expect(json(done.stdout)).toMatchObject({ url: env.server.url, kind: 'oauth', user: { id: env.owner.id, email: env.owner.email }, account: { id: env.owner.accountId }, store: 'file' });

      const file = path.join(h, '.config', 'slipway', 'credentials.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const stored = json(readFileSync(file, 'utf8')).servers[env.server.url];
      expect(stored.tokens.tokenType.toLowerCase()).toBe('dpop');
      expect(stored.tokens.refreshToken).toEqual(expect.any(String));
      expect(stored.dpopKey).toMatchObject({ kty: 'EC', crv: 'P-256', d: expect.any(String) });

      const who = await slip(cli, ['whoami', '--json'], { home: h });
      expect(who.code, who.stderr).toBe(0);
      expect(json(who.stdout)).toMatchObject({ credentials: 'oauth', stored_in: 'file', user: { id: env.owner.id, email: env.owner.email } });
      const accounts = await slip(cli, ['accounts', '--json'], { home: h });
      expect(json(accounts.stdout)).toEqual([expect.objectContaining({ account_id: env.owner.accountId, current: true })]);

      // The day's work on that sign-in: projects, a deployment followed to its end, its log.
      const projects = await slip(cli, ['projects', '--json'], { home: h });
      expect(projects.code, projects.stderr).toBe(0);
      expect(json(projects.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ id: project.id, name: 'checkout' })]));
      const deploying = slip(cli, ['deploy', '-p', 'checkout', '-e', 'signed-in', '-b', 'main', '--commit', '5e1f00d', '--wait', '--json', '--poll', '0.1'], { home: h });
      const deployment = await waitForDeployment(project.id, 'main', '5e1f00d');
      expect(deployment.created_by).toEqual({ type: 'user', id: env.owner.id });
      expect((await env.api.post(`/v1/projects/${project.id}/deployments/${deployment.id}/logs`, { token: apiKey, body: { lines: [{ text: 'built in 3 s' }] } })).status).toBe(202);
      for (const status of ['building', 'deploying', 'succeeded'])
        expect((await env.api.patch(`/v1/projects/${project.id}/deployments/${deployment.id}`, { token: apiKey, body: { status } })).status).toBe(200);
      const deployed = await deploying;
      expect(deployed.code, deployed.stderr).toBe(0);
      expect(json(deployed.stdout)).toMatchObject({ id: deployment.id, status: 'succeeded' });
      const log = await slip(cli, ['logs', deployment.id, '-p', 'checkout'], { home: h });
      expect(log.code, log.stderr).toBe(0);
      expect(log.stdout).toBe('built in 3 s\n');

      // The access token alone, as Bearer: refused (it is bound to the key).
      const bearer = await fetch(`${env.server.url}/v1/users/me`, { headers: { authorization: `Bearer ${stored.tokens.accessToken}` } });
      expect(bearer.status).toBe(401);

      // Refresh, several commands at once and the stored key: the stored-sign-in test above.
      // Logout revokes the refresh token: a copy kept aside no longer works.
      const logout = await slip(cli, ['logout', '--json'], { home: h });
      expect(logout.code, logout.stderr).toBe(0);
      expect(json(logout.stdout)).toEqual({ url: env.server.url, signed_out: true, revoked: true });
      expect(existsSync(file)).toBe(false);
      writeFileSync(file, JSON.stringify({ servers: { [env.server.url]: { ...stored, tokens: { ...stored.tokens, expiresAt: 0 } } } }), { mode: 0o600 });
      const revoked = await slip(cli, ['whoami'], { home: h });
      expect(revoked.code).toBe(3);
    } finally {
      await browser.close();
    }
  });
});

/**
 * The commands on the routes of PRODUCT.md §9 (reviews, redeploy, rollback) and §10 (logs): each test
 * runs once the server's OpenAPI document has its route, and says so when it skips.
 */
describe('approve, reject, redeploy, rollback, logs (against the §9/§10 contract)', () => {
  const deployAs = async (token: string, body: Record<string, unknown>) => {
    const res = await env.api.post(`/v1/projects/${project.id}/deployments`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; status: string; commit_sha: string | null };
  };
  const move = async (id: string, ...statuses: string[]) => {
    for (const status of statuses) expect((await env.api.patch(`/v1/projects/${project.id}/deployments/${id}`, { token: apiKey, body: { status } })).status).toBe(200);
  };

  it('logs prints the lines (stderr lines to stderr; --json one object per line); --follow ends when the deployment has and its log is complete', async () => {
    const d = await deployAs(apiKey, { environment: 'logs', branch: 'main' });
    const append = async (lines: Record<string, unknown>[]) => expect((await env.api.post(`/v1/projects/${project.id}/deployments/${d.id}/logs`, { token: apiKey, body: { lines } })).status).toBe(202);
    await append([{ text: 'step 1' }, { text: 'warning: slow', stream: 'stderr' }]);
    const plain = await scripted(['logs', d.id, '-p', 'checkout']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('step 1\n');
    expect(plain.stderr).toBe('warning: slow\n');
    const lines = await scripted(['logs', d.id, '-p', 'checkout', '--json']);
    expect(lines.stdout.trim().split('\n').map((l) => json(l))).toMatchObject([
      { seq: 1, stream: 'stdout', text: 'step 1' },
      { seq: 2, stream: 'stderr', text: 'warning: slow' },
    ]);

    const follow = scripted(['logs', d.id, '-p', 'checkout', '--follow', '--after', '2', '--poll', '0.1']);
    await append([{ text: 'step 2' }]);
    await move(d.id, 'building', 'deploying', 'succeeded');
    const followed = await follow;
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toBe('step 2\n');
  });

  it('deployments redeploy makes a new deployment of the same branch and commit (to another environment: a promotion)', async () => {
    const d = await deployAs(apiKey, { environment: 'staging', branch: 'main', commit_sha: 'abc1234' });
    await move(d.id, 'building', 'deploying', 'succeeded');
    const again = await scripted(['deployments', 'redeploy', d.id, '-p', 'checkout', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again.stdout)).toMatchObject({ environment: 'staging', branch: 'main', commit_sha: 'abc1234', kind: 'redeploy', source_deployment_id: d.id });
    const promoted = await scripted(['deployments', 'redeploy', d.id, '-p', 'checkout', '-e', 'production', '--json']);
    expect(json(promoted.stdout)).toMatchObject({ environment: 'production', commit_sha: 'abc1234', kind: 'promote', source_deployment_id: d.id });
  });

  it('rollback --env redeploys the one that succeeded before the current one', async () => {
    const first = await deployAs(apiKey, { environment: 'rollback-env', branch: 'main', commit_sha: '1111111' });
    await move(first.id, 'building', 'deploying', 'succeeded');
    const second = await deployAs(apiKey, { environment: 'rollback-env', branch: 'main', commit_sha: '2222222' });
    await move(second.id, 'building', 'deploying', 'succeeded');
    const back = await scripted(['rollback', '-p', 'checkout', '-e', 'rollback-env', '--json']);
    expect(back.code, back.stderr).toBe(0);
    expect(json(back.stdout)).toMatchObject({ environment: 'rollback-env', commit_sha: '1111111', kind: 'rollback', source_deployment_id: first.id });
  });

  it('approve and reject review a waiting deployment as a user; an API key may not review (exit 4)', async () => {
    const created = await env.api.post(`/v1/projects/${project.id}/environments`, {
      token: env.adminToken,
      body: { name: 'gated', protection: { required_approvals: 1, reviewers: [], prevent_self_review: false, wait_timer_seconds: 0, branch_patterns: null } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const asUser = { env: { SLIPWAY_TOKEN: env.adminToken } };

    const toApprove = await deployAs(apiKey, { environment: 'gated', branch: 'main' });
    expect(toApprove.status).toBe('waiting');
    const byKey = await scripted(['approve', toApprove.id, '-p', 'checkout']);
    expect(byKey.code).toBe(4);
    const approved = await scripted(['approve', toApprove.id, '-p', project.id, '-m', 'looks good', '--json'], asUser);
    expect(approved.code, approved.stderr).toBe(0);
    expect(json(approved.stdout)).toMatchObject({ decision: 'approve', comment: 'looks good' });

    const toReject = await deployAs(apiKey, { environment: 'gated', branch: 'main' });
    const rejected = await scripted(['reject', toReject.id, '-p', project.id], asUser);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toBe(`Rejected ${toReject.id}.\n`);
    expect((await env.api.get(`/v1/projects/${project.id}/deployments/${toReject.id}`, { token: apiKey })).body.status).toBe('rejected');
  });
});

describe('CI without stored secrets: a CI job’s OIDC token exchanged for each command', () => {
  let issuer: TestIssuer;
  let untrusted: TestIssuer;
  let ci: { id: string; name: string };
  let policyId: string;
  const REPOSITORY = '770077';

  beforeAll(async () => {
    [issuer, untrusted] = await Promise.all([startTestIssuer(), startTestIssuer()]);
    ci = await createProject(env.api, env.adminToken, { name: 'ci-app' });
    const res = await env.api.post(`/v1/projects/${ci.id}/trust_policies`, {
      token: env.adminToken,
      body: { name: 'GitHub Actions', issuer: issuer.url, claims: { repository_id: REPOSITORY, ref: 'refs/heads/main' }, scopes: ['read', 'write'], environments: ['production'] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    policyId = res.body.id as string;
  });
  afterAll(async () => {
    await Promise.all([issuer?.close(), untrusted?.close()]);
  });

  /** A GitHub Actions ID token of the trusted repository's main branch (aud: the server's base URL). */
  const ciToken = (from: TestIssuer = issuer, claims: Record<string, unknown> = {}) =>
    from.sign({ sub: `repo:acme/app:ref:refs/heads/main`, aud: env.server.url, repository_id: REPOSITORY, ref: 'refs/heads/main', ...claims }, { now: env.server.clock.now() });

  /** `slip` with SLIPWAY_URL and the given variables only: no API key, nothing stored. */
  const inCi = (args: string[], vars: Record<string, string>) => slip(cli, args, { home: home(), env: { SLIPWAY_URL: env.server.url, CI: 'true', ...vars } });

  it('SLIPWAY_OIDC_TOKEN: deploy --json acts as the trust policy (created_by federated), nothing stored; whoami says where the credentials come from', async () => {
    const run = await inCi(['deploy', '-p', ci.id, '-e', 'production', '-b', 'main', '-c', 'c1c1c1c', '--json'], { SLIPWAY_OIDC_TOKEN: await ciToken() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const deployment = json(run.stdout);
    expect(deployment).toMatchObject({ project_id: ci.id, environment: 'production', branch: 'main', commit_sha: 'c1c1c1c', status: 'queued' });
    const read = await env.api.get(`/v1/projects/${ci.id}/deployments/${deployment.id}`, { token: env.adminToken });
    expect(read.body.created_by).toEqual({ type: 'federated', id: policyId });

    const home = tempDir('slipway-cli-home-');
    const who = await slip(cli, ['whoami', '--json'], { home, env: { SLIPWAY_URL: env.server.url, SLIPWAY_OIDC_TOKEN: await ciToken() } });
    expect(who.code, who.stderr).toBe(0);
    expect(json(who.stdout)).toEqual({ url: env.server.url, credentials: 'oidc', stored_in: null, user: null, projects: [{ id: ci.id, name: 'ci-app' }] });
    expect(readdirSync(home)).toEqual([]); // no config folder, no credentials file
  });

  it('SLIPWAY_OIDC_TOKEN_FILE with the project by name (SLIPWAY_PROJECT): the token is read from the file, surrounding whitespace ignored', async () => {
    const file = path.join(tempDir('slipway-ci-token-'), 'id-token');
    writeFileSync(file, `\n${await ciToken()}\n`);
    const run = await inCi(['deploy', '-e', 'production', '-b', 'main', '-c', 'f11ef11', '--json'], { SLIPWAY_OIDC_TOKEN_FILE: file, SLIPWAY_PROJECT: 'ci-app' });
    expect(run.code, run.stderr).toBe(0);
    expect(json(run.stdout)).toMatchObject({ project_id: ci.id, commit_sha: 'f11ef11', created_by: { type: 'federated', id: policyId } });

    const missing = await inCi(['deployments', 'list', '-p', ci.id, '--json'], { SLIPWAY_OIDC_TOKEN_FILE: `${file}.missing` });
    expect(missing.code).toBe(3);
    expect(json(missing.stderr).error).toMatchObject({ code: 'ci_token_unavailable', exit_code: 3 });
  });

  it('SLIPWAY_OIDC=github: asks ACTIONS_ID_TOKEN_REQUEST_URL (&audience=the base URL, or SLIPWAY_OIDC_AUDIENCE) with the request token as Bearer, exchanges its {value}', async () => {
    const requestToken = `ghs_${Date.now()}`;
    const seen: { authorization: string | undefined; audience: string | null; apiVersion: string | null }[] = [];
    const github = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://127.0.0.1');
      seen.push({ authorization: req.headers.authorization, audience: url.searchParams.get('audience'), apiVersion: url.searchParams.get('api-version') });
      if (url.pathname !== '/_apis/token' || req.headers.authorization !== `Bearer ${requestToken}`) return res.writeHead(403).end();
      void ciToken(issuer, { aud: url.searchParams.get('audience') }).then((value) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ count: 1, value }));
      });
    });
    await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
    try {
      const requestUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}/_apis/token?api-version=2.0`;
      const actions = { SLIPWAY_OIDC: 'github', ACTIONS_ID_TOKEN_REQUEST_URL: requestUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: requestToken };
      const run = await inCi(['deploy', '-p', ci.id, '-e', 'production', '-b', 'main', '-c', '9a9a9a9', '--json'], actions);
      expect(run.code, run.stderr).toBe(0);
      expect(json(run.stdout)).toMatchObject({ project_id: ci.id, commit_sha: '9a9a9a9', created_by: { type: 'federated', id: policyId } });
      expect(seen).toEqual([{ authorization: `Bearer ${requestToken}`, audience: env.server.url, apiVersion: '2.0' }]);

      // Another audience asked of GitHub: a token the policy (audience: the base URL) does not accept.
      const other = await inCi(['deployments', 'list', '-p', ci.id, '--json'], { ...actions, SLIPWAY_OIDC_AUDIENCE: 'https://elsewhere.example.com' });
      expect(other.code).toBe(3);
      expect(seen[1]!.audience).toBe('https://elsewhere.example.com');
      expect(json(other.stderr).error).toMatchObject({ code: 'invalid_grant', exit_code: 3 });

      // A wrong request token: GitHub's 403, no exchange.
      const refused = await inCi(['deployments', 'list', '-p', ci.id, '--json'], { ...actions, ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'ghs_wrong' });
      expect(refused.code).toBe(3);
      expect(json(refused.stderr).error).toMatchObject({ code: 'ci_token_unavailable', exit_code: 3 });
      expect(json(refused.stderr).error.message).toContain('403');
      expect(refused.stderr).not.toContain('ghs_wrong');

      // SLIPWAY_OIDC=github outside GitHub Actions (no request variables): said, exit 3.
      const outside = await inCi(['deployments', 'list', '-p', ci.id], { SLIPWAY_OIDC: 'github' });
      expect(outside.code).toBe(3);
      expect(outside.stderr).toContain('id-token: write');
      expect(seen).toHaveLength(3);
    } finally {
      github.closeAllConnections();
      await new Promise<void>((resolve) => github.close(() => resolve()));
    }
  });

  it('a refused token exits 3 with the server’s error; an environment outside the policy is the API’s 403 (exit 4); two credentials at once are a usage error (exit 2)', async () => {
    const foreign = await inCi(['deploy', '-p', ci.id, '-e', 'production', '-b', 'main', '--json'], { SLIPWAY_OIDC_TOKEN: await ciToken(untrusted) });
    expect(foreign.code).toBe(3);
    expect(foreign.stdout).toBe('');
    expect(json(foreign.stderr).error).toEqual({ code: 'invalid_grant', exit_code: 3, message: expect.stringContaining('The subject token is not acceptable.') });
    const human = await inCi(['deploy', '-p', ci.id, '-e', 'production', '-b', 'main'], { SLIPWAY_OIDC_TOKEN: await ciToken(issuer, { ref: 'refs/heads/feature' }) });
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/^slip: .* refused the CI token from SLIPWAY_OIDC_TOKEN: The subject token is not acceptable\. \(invalid_grant\)\.\n$/);
    const wrongProject = await inCi(['deployments', 'list', '-p', project.id, '--json'], { SLIPWAY_OIDC_TOKEN: await ciToken() });
    expect(wrongProject.code).toBe(3);
    expect(json(wrongProject.stderr).error.code).toBe('invalid_target');

    const staging = await inCi(['deploy', '-p', ci.id, '-e', 'staging', '-b', 'main', '--json'], { SLIPWAY_OIDC_TOKEN: await ciToken() });
    expect(staging.code).toBe(4);
    expect(json(staging.stderr).error).toMatchObject({ code: 'forbidden', exit_code: 4 });

    const both = await inCi(['deployments', 'list', '-p', ci.id], { SLIPWAY_OIDC_TOKEN: await ciToken(), SLIPWAY_TOKEN: apiKey });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('SLIPWAY_TOKEN and SLIPWAY_OIDC_TOKEN');
  });

  it('one CI token given to several commands at once: exactly one is exchanged, the others exit 3 (invalid_grant)', async () => {
    const token = await ciToken();
    const runs = await Promise.all(Array.from({ length: 4 }, () => inCi(['deployments', 'list', '-p', ci.id, '--json'], { SLIPWAY_OIDC_TOKEN: token })));
    expect(runs.map((r) => r.code).sort()).toEqual([0, 3, 3, 3]);
    for (const r of runs.filter((r) => r.code === 3)) expect(json(r.stderr).error.code).toBe('invalid_grant');
    expect(Array.isArray(json(runs.find((r) => r.code === 0)!.stdout))).toBe(true);
  });
});
