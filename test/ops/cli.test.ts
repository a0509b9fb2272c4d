import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { basicAuth } from '../support/oauthDriver.ts';
import { runCli } from '../support/cli.ts';
import { openLinkPage, pressAccept } from '../support/linkPages.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PASSWORD = 'a perfectly long password';
const uri = inject('mongodbUri');
let mongo: MongoClient;
let keysDir: string;
const databases: string[] = [];

function freshDb(): string {
  const name = `t_cli_${randomBytes(5).toString('hex')}`;
  databases.push(name);
  return name;
}

/** The admin CLI exactly as an operator runs it (runCli), on database `dbName`. */
const slipway = async (dbName: string, ...args: string[]) => await runCli({ mongodbUri: uri, mongodbDb: dbName, keysDir }, args);

/** The same, with `input` piped on stdin (how a script passes a password). */
const slipwayWithInput = async (input: string, dbName: string, ...args: string[]) => await runCli({ mongodbUri: uri, mongodbDb: dbName, keysDir }, args, { input });

beforeAll(async () => {
  mongo = await new MongoClient(uri).connect();
  keysDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-cli-keys-'));
});
afterAll(async () => {
  for (const name of databases) await mongo.db(name).dropDatabase().catch(() => undefined);
  await mongo?.close();
  await rm(keysDir, { recursive: true, force: true });
});

describe('slipway users create', () => {
  it('prints the new user as JSON without any credential and stores it with an argon2id hash', async () => {
    const db = freshDb();
    const result = await slipwayWithInput(`${PASSWORD}\n`, db, 'users', 'create', '--email', 'Ops.Admin@Example.com', '--name', 'Ops Admin', '--role', 'owner', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const user = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(user).toMatchObject({ email: 'ops.admin@example.com', name: 'Ops Admin', role: 'owner', last_login_at: null });
    expect(user.id).toMatch(/^usr_/);
    expect(user.account_id).toMatch(/^acct_/);
    expect(Object.keys(user).filter((k) => /password|hash|secret/.test(k))).toEqual([]);
    expect(result.stdout).not.toContain(PASSWORD);
    expect(result.stdout).not.toContain('argon2');

    const stored = await mongo.db(db).collection('users').findOne({ _id: user.id as never });
    expect(stored).toMatchObject({ email: 'ops.admin@example.com', account_id: user.account_id, role: 'owner', status: 'active' });
    // The password is the person's, stored hashed.
    const person = await mongo.db(db).collection('identities').findOne({ _id: stored!.identity_id });
    expect(person!.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify([stored, person])).not.toContain(PASSWORD);
    expect(await mongo.db(db).collection('accounts').countDocuments({ _id: user.account_id as never })).toBe(1);

    const again = await slipwayWithInput(PASSWORD, db, 'users', 'create', '--email', 'ops.admin@example.com', '--name', 'Twin', '--role', 'viewer', '--json');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    expect(await mongo.db(db).collection('users').countDocuments()).toBe(1);
  });

  it('refuses bad arguments with a non-zero exit, listing every problem, and creates nothing', async () => {
    const db = freshDb();
    const result = await slipwayWithInput('short\n', db, 'users', 'create', '--name', 'Nobody', '--role', 'superuser', '--json');
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--email: required/);
    expect(result.stderr).toMatch(/--role: .*viewer/);
    // The password comes from stdin now, never from a flag.
    expect(result.stderr).toMatch(/password \(stdin\): .*12/);
    expect(result.stderr).not.toContain('short');
    expect(await mongo.db(db).collection('users').countDocuments()).toBe(0);

    const unknownFlag = await slipway(db, 'users', 'create', '--emial', 'x@example.com');
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain("'--emial'");

    // A password on the command line is refused (shell history), and not repeated back.
    const onArgv = await slipway(db, 'users', 'create', '--email', 'x@example.com', '--name', 'X', '--role', 'owner', '--password', PASSWORD);
    expect(onArgv.code).toBe(2);
    expect(onArgv.stderr).toMatch(/--password is not accepted.*stdin/s);
    expect(onArgv.stderr + onArgv.stdout).not.toContain(PASSWORD);
    expect(await mongo.db(db).collection('users').countDocuments()).toBe(0);
  });
});

describe('slipway users invite', () => {
  it('prints the one-time link (stored only as a digest); the invited person accepts it on the page; deleting an invitation revokes it', async () => {
    const db = freshDb();
    const owner = JSON.parse((await slipwayWithInput(`${PASSWORD}\n`, db, 'users', 'create', '--email', 'owner@example.com', '--name', 'Owner', '--role', 'owner', '--json')).stdout) as { account_id: string };

    const bad = await slipway(db, 'users', 'invite', '--name', 'Nobody', '--role', 'superuser');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--email: required/);
    expect(bad.stderr).toMatch(/--role: .*viewer/);

    const human = await slipway(db, 'users', 'invite', '--email', 'Dev@Example.com', '--name', 'Dev', '--role', 'developer');
    expect(human.code).toBe(0);
    const link = /^ {2}(http\S+\/dashboard\/invitation\?token=(slwin_[A-Za-z0-9_-]{43}))$/m.exec(human.stdout);
    expect(human.stdout).toContain(`into account ${owner.account_id} as developer`);
    expect(link).not.toBeNull();
    const invited = await mongo.db(db).collection('users').findOne({ email: 'dev@example.com' });
    expect(invited).toMatchObject({ account_id: owner.account_id, status: 'invited', role: 'developer' });
    expect(JSON.stringify(await mongo.db(db).collection('invitations').find().toArray())).not.toContain(link![2]);
    expect((await slipway(db, 'users', 'invite', '--email', 'dev@example.com', '--name', 'Twin', '--role', 'viewer')).code).toBe(1);

    const revoked = JSON.parse((await slipway(db, 'users', 'invite', '--email', 'gone@example.com', '--name', 'Gone', '--role', 'viewer', '--json')).stdout) as { id: string; status: string; invitation_url: string };
    expect(revoked.status).toBe('invited');
    expect((await slipway(db, 'users', 'delete', revoked.id)).code).toBe(0);

    const server = await startTestServer({ dbName: db, keysDir });
    try {
      const onServer = (url: string) => `${server.url}${new URL(url).pathname}${new URL(url).search}`;
      const accepted = await pressAccept(await openLinkPage(onServer(link![1]!)), 'the newcomer’s own password');
      expect(accepted.status).toBe(303);
      expect(await mongo.db(db).collection('users').findOne({ email: 'dev@example.com' })).toMatchObject({ status: 'active' });
      expect((await openLinkPage(onServer(revoked.invitation_url))).status).toBe(400);
    } finally {
      await server.stop();
    }
  });
});

describe('slipway clients create and key rotation', () => {
  const db = freshDb();
  let secret: string;
  let clientId: string;

  it('prints client_secret once and stores only its SHA-256', async () => {
    expect((await slipwayWithInput(PASSWORD, db, 'users', 'create', '--email', 'owner@example.com', '--name', 'Owner', '--role', 'owner')).code).toBe(0);
    const result = await slipway(db, 'clients', 'create', '--name', 'Deployer', '--confidential', '--grant', 'client_credentials', '--scope', 'read write', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const client = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(client).toMatchObject({ client_name: 'Deployer', token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], scope: 'read write' });
    secret = client.client_secret as string;
    clientId = client.client_id as string;
    expect(secret).toMatch(/^slwcs_[A-Za-z0-9_-]{40,}$/);
    expect(result.stdout.split(secret).length - 1).toBe(1);

    const stored = await mongo.db(db).collection('oauth_clients').findOne({ _id: clientId as never });
    expect(stored).not.toBeNull();
    expect(stored!.client_secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    const text = JSON.stringify(stored);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice('slwcs_'.length));

    const both = await slipway(db, 'clients', 'create', '--name', 'Confused', '--public', '--confidential');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('exclude each other');
  });

  it('creates a public client that requires DPoP and pushed authorization requests', async () => {
    const result = await slipway(db, 'clients', 'create', '--name', 'Mobile', '--redirect-uri', 'com.example.app:/callback', '--require-dpop', '--require-par', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ client_name: 'Mobile', token_endpoint_auth_method: 'none', dpop_bound_access_tokens: true, require_pushed_authorization_requests: true });
  });

  it('keys rotate puts a new signing key in front: a restarted server signs with it, old tokens still verify', async () => {
    expect(clientId, 'depends on the client created above').toBeTruthy();
    const clientCredentials = async (server: TestServer) => {
      const response = await fetch(`${server.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(clientId, secret) },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read' }).toString(),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { access_token: string }).access_token;
    };

    const listed = await slipway(db, 'keys', 'list', '--json');
    expect(listed.code).toBe(0);
    const oldKid = (JSON.parse(listed.stdout) as { signing: { kid: string; current: boolean }[] }).signing.find((k) => k.current)!.kid;

    let server = await startTestServer({ dbName: db, keysDir });
    try {
      // The secret printed by the CLI is the one the server accepts (and a wrong one is refused).
      const wrong = await fetch(`${server.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(clientId, `${secret}x`) },
        body: 'grant_type=client_credentials&scope=read',
      });
      expect(wrong.status).toBe(401);
      const oldToken = await clientCredentials(server);
      expect(decodeProtectedHeader(oldToken).kid).toBe(oldKid);

      await server.stop();
      const rotated = await slipway(db, 'keys', 'rotate', '--json');
      expect(rotated.code).toBe(0);
      const { kid: newKid, kids } = JSON.parse(rotated.stdout) as { kid: string; kids: string[] };
      expect(kids).toEqual([newKid, oldKid]);
      const onDisk = JSON.parse(await readFile(path.join(keysDir, 'signing-keys.json'), 'utf8')) as { keys: { kid: string }[] };
      expect(onDisk.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);

      server = await server.restart();
      const newToken = await clientCredentials(server);
      expect(decodeProtectedHeader(newToken).kid).toBe(newKid);

      const jwks = (await (await fetch(`${server.issuer}/jwks`)).json()) as JSONWebKeySet;
      expect(jwks.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
      expect(JSON.stringify(jwks)).not.toMatch(/"(d|p|q|dp|dq|qi)":/);
      const verify = createLocalJWKSet(jwks);
      for (const token of [oldToken, newToken]) {
        const { payload } = await jwtVerify(token, verify, { issuer: server.issuer, audience: `${server.url}/v1`, typ: 'at+jwt' });
        expect(payload.client_id).toBe(clientId);
      }

      const retireCurrent = await slipway(db, 'keys', 'retire', '--kid', newKid, '--json');
      expect(retireCurrent.code).not.toBe(0);
      expect(retireCurrent.stderr).toContain('current signing key');
      const after = JSON.parse(await readFile(path.join(keysDir, 'signing-keys.json'), 'utf8')) as { keys: { kid: string }[] };
      expect(after.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
    } finally {
      await server.stop();
    }
  });
});

describe('slipway db migrate and usage errors', () => {
  it('db migrate is idempotent', async () => {
    const db = freshDb();
    const first = await slipway(db, 'db', 'migrate', '--json');
    const second = await slipway(db, 'db', 'migrate', '--json');
    expect([first.code, second.code]).toEqual([0, 0]);
    const a = JSON.parse(first.stdout) as { ok: boolean; collections: string[] };
    const b = JSON.parse(second.stdout) as { ok: boolean; collections: string[] };
    expect(a.ok).toBe(true);
    expect(a.collections).toEqual(expect.arrayContaining(['users', 'oauth_clients', 'rate_limits', 'oidc_grant']));
    expect(b).toEqual(a);
    const indexes = await mongo.db(db).collection('users').indexes();
    // E-mails are unique within an account; a person's sign-in (identities) across the service.
    expect(indexes.map((i) => i.name)).toContain('account_email_unique');
    expect(indexes.map((i) => i.name)).not.toContain('email_key_unique');
    expect((await mongo.db(db).collection('identities').indexes()).map((i) => i.name)).toContain('email_unique');
  });

  it('an unknown command exits 2 with the usage text', async () => {
    const result = await slipway(freshDb(), 'projects', 'explode');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command: projects explode');
    expect(result.stderr).toContain('Usage: slipway');
    const bare = await slipway(freshDb());
    expect(bare.code).toBe(2);
  });
});
