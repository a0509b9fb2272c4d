import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuthorizeError, authorizeOverHttp, basicAuth, tokenRequest } from '../support/oauthDriver.ts';
import { buildProgram } from '../../src/cli/program.ts';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import { runCli } from '../support/cli.ts';

/**
 * The admin CLI as an operator's tool, run as a process (`bin/slipway.js`) against the same database
 * and keys as a running server, whose real endpoints then show the effect of each command.
 */
// The CLI is another process: the server sees its changes when its caches expire, here at once.
const env = useApiServer({ overrides: { principalCacheSeconds: 0 } });
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

const slipway = async (args: string[], input?: string) => await runCli(env.server.config, args, input === undefined ? {} : { input });

/** Runs a command with --json that must succeed; returns its parsed stdout. */
async function ok(args: string[], input?: string): Promise<Record<string, unknown> & { data?: Record<string, unknown>[] }> {
  const result = await slipway([...args, '--json'], input);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown> & { data?: Record<string, unknown>[] };
}

/** Runs a command with --json that must fail; returns the exit code and the JSON error from stderr. */
async function refused(args: string[], input?: string): Promise<{ code: number | null; error: { code: string; message: string; details?: unknown } }> {
  const result = await slipway([...args, '--json'], input);
  expect(result.stdout, args.join(' ')).toBe('');
  const parsed = JSON.parse(result.stderr) as { error: { code: string; message: string } };
  return { code: result.code, error: parsed.error };
}

let accountId: string;
beforeAll(() => {
  accountId = env.owner.accountId;
});

describe('slipway users', () => {
  it('list, get, set-password from stdin (the new one signs in, the old one no longer), delete; the last owner stays', async () => {
    const viewer = await makeUser(env.server, { role: 'viewer', account_id: accountId });
    const listed = await ok(['users', 'list', '--account', accountId]);
    expect(listed.pagination).toMatchObject({ page: 1, per_page: 20, total: 2 });
    expect(listed.data!.map((u) => u.id).sort()).toEqual([env.owner.id, viewer._id].sort());
    expect(await ok(['users', 'get', viewer._id])).toMatchObject({ id: viewer._id, email: viewer.email, role: 'viewer', account_id: accountId });

    const { client } = await makeClient(env.server, { account_id: accountId, first_party: true });
    const signIn = (password: string) => authorizeOverHttp({ issuer: env.server.issuer, clientId: client._id, redirectUri: REDIRECT_URI, scope: 'read', email: viewer.email, password });
    const newPassword = 'a new and long passphrase 42';
    const set = await slipway(['users', 'set-password', viewer._id, '--json'], `${newPassword}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ id: viewer._id });
    expect(set.stdout + set.stderr).not.toContain(newPassword);
    expect((await signIn(newPassword)).callback.searchParams.get('code')).toBeTruthy();
    await expect(signIn(viewer.password)).rejects.toBeInstanceOf(AuthorizeError);

    // Too short, from stdin: a JSON error, exit 1, nothing changed.
    const short = await refused(['users', 'set-password', viewer._id], 'short\n');
    expect(short.code).toBe(1);
    expect(short.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'password', message: expect.stringMatching(/12/) }] });
    // Never from the command line.
    const onArgv = await refused(['users', 'set-password', viewer._id, '--password', newPassword]);
    expect(onArgv).toMatchObject({ code: 2, error: { code: 'usage', message: expect.stringContaining('--password is not accepted') } });

    const lastOwner = await refused(['users', 'delete', env.owner.id]);
    expect(lastOwner).toMatchObject({ code: 1, error: { code: 'conflict' } });
    const deleted = await ok(['users', 'delete', viewer._id]);
    expect(deleted).toMatchObject({ deleted: { id: viewer._id } });
    expect(await env.server.repos.users.findById(viewer._id)).toBeNull();
    expect(await refused(['users', 'get', viewer._id])).toMatchObject({ code: 1, error: { code: 'not_found' } });
  });
});

describe('slipway clients', () => {
  it('list, get, rotate-secret (the new secret works, the old one not), delete', async () => {
    const { client, clientSecret } = await makeClient(env.server, {
      account_id: accountId,
      client_name: 'Deployer',
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
    });
    const listed = await ok(['clients', 'list', '--account', accountId]);
    expect(listed.data!.map((c) => c.client_id)).toContain(client._id);
    expect(JSON.stringify(listed)).not.toMatch(/secret_hash|slwcs_/);
    expect(await ok(['clients', 'get', client._id])).toMatchObject({ client_id: client._id, client_name: 'Deployer' });

    const rotated = await ok(['clients', 'rotate-secret', client._id]);
    const secret = rotated.client_secret as string;
    expect(secret).toMatch(/^slwcs_/);
    expect(secret).not.toBe(clientSecret);
    expect((await tokenRequest(env.server.issuer, { clientId: client._id, clientSecret: secret }, { grant_type: 'client_credentials', scope: 'read' })).access_token).toBeTruthy();
    const old = await fetch(`${env.server.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(client._id, clientSecret!) },
      body: 'grant_type=client_credentials&scope=read',
    });
    expect(old.status).toBe(401);

    expect(await ok(['clients', 'delete', client._id])).toMatchObject({ deleted: { client_id: client._id } });
    expect(await refused(['clients', 'get', client._id])).toMatchObject({ code: 1, error: { code: 'not_found' } });
  });
});

describe('slipway keys (project API keys)', () => {
  it('list --project, get, revoke and delete: a revoked key stops working on /v1', async () => {
    const project = (await createProject(env.api, env.adminToken, { name: `cli-admin-${Date.now()}` })).id as string;
    const first = await ok(['keys', 'create', '--project', project, '--name', 'one', '--scopes', 'read']);
    const second = await ok(['keys', 'create', '--project', project, '--name', 'two', '--scopes', 'read']);
    const listed = await ok(['keys', 'list', '--project', project]);
    expect(listed.data!.map((k) => k.id).sort()).toEqual([first.id, second.id].sort());
    expect(JSON.stringify(listed)).not.toContain(first.key as string);
    const got = await ok(['keys', 'get', first.id as string]);
    expect(got).toMatchObject({ id: first.id, name: 'one', status: 'active' });
    expect(got).not.toHaveProperty('key');

    expect((await env.api.get(`/v1/projects/${project}`, { token: first.key as string })).status).toBe(200);
    expect(await ok(['keys', 'revoke', first.id as string])).toMatchObject({ id: first.id, status: 'revoked' });
    expect(await ok(['keys', 'delete', second.id as string])).toMatchObject({ id: second.id, status: 'revoked' });
    for (const key of [first.key, second.key] as string[]) expect((await env.api.get(`/v1/projects/${project}`, { token: key })).status).toBe(401);
    expect(await refused(['keys', 'get', 'key_nothing'])).toMatchObject({ code: 1, error: { code: 'not_found' } });
    // Without --project, `keys list` still lists the server's key material.
    expect(await ok(['keys', 'list'])).toMatchObject({ signing: expect.any(Array), data: { current: expect.any(String) } });
  });
});

describe('slipway accounts', () => {
  it('list and get with their numbers; delete needs --yes and removes everything in the account, and only that', async () => {
    const other = await env.tokens.user('owner');
    const otherToken = await env.tokens.accessToken(other, 'write');
    const project = (await createProject(env.api, otherToken, { name: 'doomed' })).id as string;
    await makeClient(env.server, { account_id: other.accountId });

    const listed = await ok(['accounts', 'list', '--per-page', '100']);
    expect(listed.data!.map((a) => a.id)).toEqual(expect.arrayContaining([accountId, other.accountId]));
    expect(await ok(['accounts', 'get', other.accountId])).toMatchObject({ id: other.accountId, users: 1, projects: 1, oauth_clients: 2 });

    expect(await refused(['accounts', 'delete', other.accountId])).toMatchObject({ code: 2, error: { code: 'usage', message: expect.stringContaining('--yes') } });
    const deleted = await ok(['accounts', 'delete', other.accountId, '--yes']);
    expect(deleted).toMatchObject({ deleted: { id: other.accountId }, users: 1, projects: 1, oauth_clients: 2 });

    expect(await refused(['accounts', 'get', other.accountId])).toMatchObject({ code: 1, error: { code: 'not_found' } });
    expect(await env.server.repos.users.findById(other.id)).toBeNull();
    expect(await env.server.repos.projects.findById(project)).toBeNull();
    // The deleted account's tokens no longer open anything; the other account is untouched.
    expect((await env.api.get('/v1/projects', { token: otherToken })).status).toBe(401);
    expect((await env.api.get('/v1/projects', { token: env.adminToken })).status).toBe(200);
    expect(await ok(['accounts', 'get', accountId])).toMatchObject({ id: accountId });
  });
});

describe('help, version, usage errors and progress', () => {
  it('--version prints the package version; every command and subcommand has help', async () => {
    const version = await slipway(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version);

    const program = buildProgram();
    for (const group of program.commands.filter((c) => c.name() !== 'help')) {
      const help = await slipway([group.name(), '--help']);
      expect(help.code, group.name()).toBe(0);
      for (const sub of group.commands.filter((c) => c.name() !== 'help')) {
        expect(help.stdout, `${group.name()} --help lists ${sub.name()}`).toContain(sub.name());
        const text = sub.helpInformation();
        expect(text).toContain(`Usage: slipway ${group.name()} ${sub.name()}`);
        expect(sub.description().length, `${group.name()} ${sub.name()}`).toBeGreaterThan(10);
        expect(sub.options.map((o) => o.long), `${group.name()} ${sub.name()}`).toContain('--json');
      }
    }
    const leaf = await slipway(['users', 'set-password', '--help']);
    expect(leaf.code).toBe(0);
    expect(leaf.stdout).toContain('stdin');
  });

  it('usage errors are JSON under --json, with exit 2', async () => {
    expect(await refused(['users', 'get'])).toMatchObject({ code: 2, error: { code: 'usage', message: expect.stringContaining("missing required argument 'id'") } });
    expect(await refused(['users', 'list', '--per-page', '500'])).toMatchObject({ code: 2, error: { code: 'usage', message: expect.stringContaining('1 to 100') } });
    expect(await refused(['clients', 'explode'])).toMatchObject({ code: 2, error: { code: 'usage', message: 'unknown command: clients explode' } });
  });

  it('long work reports progress on stderr while stdout stays the result', async () => {
    const result = await slipway(['db', 'migrate', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true });
    expect(result.stderr).toMatch(/^slipway: creating and updating indexes…$/m);
    expect(result.stderr).toMatch(/^slipway: indexes are up to date \(\d+ collections\)$/m);
  });
});
