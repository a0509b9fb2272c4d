import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createChanges } from '../../src/lib/changes.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { sha256Hex } from '../../src/lib/hash.ts';
import { createRepositories } from '../../src/repositories/index.ts';
import { collectionName, createAdapterClass } from '../../src/repositories/oidc/index.ts';
import { commandsDuring } from '../support/commands.ts';
import { signedInConfidential } from '../support/factories.ts';
import { useTwoInstances } from '../support/fixtures.ts';
import { basicAuth } from '../support/oauthDriver.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';

/**
 * Refresh tokens and grants held in memory by the provider's adapter (src/repositories/oidc/heldArtifacts.ts):
 * read once, answered from memory for at most the hold time on the adapter's clock, and dropped at once by
 * any change made through this adapter or announced in this process. Tested on the adapter itself, since
 * at the token endpoint the grant's own check would hide a refresh token held too long.
 */
const HOLD_MS = 15_000;

let client: MongoClient;
let db: Db;
beforeAll(async () => {
  client = await MongoClient.connect(inject('mongodbUri'), { monitorCommands: true });
  db = client.db(`t_${randomBytes(6).toString('hex')}`);
});
afterAll(async () => {
  await db.dropDatabase().catch(() => undefined);
  await client.close();
});

/** An adapter class over the test database with its own clock, and the way to announce a grant revoked in this process. */
function adapters() {
  let now = Date.parse('2026-11-27T08:00:00Z');
  const clock: Clock = { now: () => now, date: () => new Date(now) };
  let announce: (grantId: string) => void = () => undefined;
  const Adapter = createAdapterClass(db, createRepositories(db, { changes: createChanges() }).oauthClients, {
    holdMs: HOLD_MS,
    clock,
    onGrantRevokedHere: (forget) => {
      announce = forget;
    },
  });
  return { Adapter, advance: (ms: number) => (now += ms), announce: (grantId: string) => announce(grantId) };
}

/** A refresh token of a grant of its own, saved through the adapter given (by default another instance's). */
async function savedRefreshToken(Adapter = adapters().Adapter) {
  const id = randomBytes(32).toString('base64url');
  const grantId = randomBytes(16).toString('base64url');
  await new Adapter('RefreshToken').upsert(id, { jti: id, kind: 'RefreshToken', grantId, clientId: 'cli_held', accountId: 'usr_held' }, 3600);
  const deleteBehindItsBack = async () => expect((await db.collection<{ _id: string }>(collectionName('RefreshToken')).deleteOne({ _id: sha256Hex(id) })).deletedCount).toBe(1);
  return { id, grantId, deleteBehindItsBack };
}

describe('refresh tokens held in memory by the adapter', () => {
  it('are read once, then answered from memory (each answer a fresh object) until the hold time has passed on the clock', async () => {
    const { Adapter, advance } = adapters();
    const tokens = new Adapter('RefreshToken');
    const { id, deleteBehindItsBack } = await savedRefreshToken();
    const commands = await commandsDuring(client, async () => {
      const first = await tokens.find(id);
      expect(first).toMatchObject({ jti: id });
      first!.scope = 'changed by the caller';
      expect(await tokens.find(id)).not.toHaveProperty('scope');
    });
    expect(commands.filter((c) => c === `find ${collectionName('RefreshToken')}`)).toHaveLength(1);
    // Gone from the database without this process knowing (another instance revoked it): held until the time is up.
    await deleteBehindItsBack();
    advance(HOLD_MS - 1);
    expect(await tokens.find(id)).toMatchObject({ jti: id });
    advance(1);
    expect(await tokens.find(id)).toBeUndefined();
  });

  it('twenty concurrent finds of one token not held send one read', async () => {
    const { Adapter } = adapters();
    const { id } = await savedRefreshToken();
    const commands = await commandsDuring(client, async () => {
      const found = await Promise.all(Array.from({ length: 20 }, () => new Adapter('RefreshToken').find(id)));
      expect(found.every((payload) => payload?.jti === id)).toBe(true);
    });
    expect(commands.filter((c) => c === `find ${collectionName('RefreshToken')}`)).toHaveLength(1);
  });

  it('one saved here is held from its save: it is not read before its hold time has passed', async () => {
    const { Adapter, advance } = adapters();
    const tokens = new Adapter('RefreshToken');
    const { id, deleteBehindItsBack } = await savedRefreshToken(Adapter);
    const commands = await commandsDuring(client, async () => expect(await tokens.find(id)).toMatchObject({ jti: id, clientId: 'cli_held' }));
    expect(commands).toEqual([]);
    await deleteBehindItsBack();
    advance(HOLD_MS);
    expect(await tokens.find(id)).toBeUndefined();
  });

  it('are dropped at once when destroyed, consumed or saved again here', async () => {
    const { Adapter } = adapters();
    const tokens = new Adapter('RefreshToken');

    const destroyed = await savedRefreshToken(Adapter);
    expect(await tokens.find(destroyed.id)).toBeTruthy();
    await tokens.destroy(destroyed.id);
    expect(await tokens.find(destroyed.id)).toBeUndefined();

    const consumed = await savedRefreshToken(Adapter);
    expect(await tokens.find(consumed.id)).not.toHaveProperty('consumed');
    await tokens.consume(consumed.id);
    expect(await tokens.find(consumed.id)).toHaveProperty('consumed');

    const saved = await savedRefreshToken(Adapter);
    expect(await tokens.find(saved.id)).toBeTruthy();
    await tokens.upsert(saved.id, { jti: saved.id, kind: 'RefreshToken', grantId: saved.grantId, clientId: 'cli_held', scope: 'read' }, 3600);
    expect(await tokens.find(saved.id)).toMatchObject({ scope: 'read' });
  });

  it('are dropped at once, every one of the grant, when the grant is revoked here (by the provider or announced by a service)', async () => {
    const { Adapter, announce } = adapters();
    const tokens = new Adapter('RefreshToken');
    const [a, b] = [await savedRefreshToken(Adapter), await savedRefreshToken(Adapter)];
    for (const t of [a, b]) expect(await tokens.find(t.id)).toBeTruthy();
    // Deleted behind its back first: only a dropped token is looked for in the database again.
    await a.deleteBehindItsBack();
    await b.deleteBehindItsBack();
    await tokens.revokeByGrantId(a.grantId);
    expect(await tokens.find(a.id)).toBeUndefined();
    expect(await tokens.find(b.id)).toBeTruthy();
    announce(b.grantId);
    expect(await tokens.find(b.id)).toBeUndefined();
  });

  it('a read in flight when a grant is revoked here is answered but not held', async () => {
    const { Adapter, announce } = adapters();
    const tokens = new Adapter('RefreshToken');
    const { id, grantId, deleteBehindItsBack } = await savedRefreshToken(Adapter);
    const reading = tokens.find(id);
    announce(grantId);
    expect(await reading).toMatchObject({ jti: id });
    await deleteBehindItsBack();
    expect(await tokens.find(id)).toBeUndefined();
  });

  it('a used refresh token is never held (the reuse grace window may end while it would be)', async () => {
    const { Adapter } = adapters();
    const tokens = new Adapter('RefreshToken');
    const { id, deleteBehindItsBack } = await savedRefreshToken(Adapter);
    await tokens.consume(id);
    expect(await tokens.find(id)).toHaveProperty('consumed');
    await deleteBehindItsBack();
    expect(await tokens.find(id)).toBeUndefined();
  });
});

describe('a refresh token held on one instance and revoked on another', () => {
  const instances = useTwoInstances();

  it('is refreshed there until its hold ends, and what that issues is refused by /v1 on every instance within the same bound', async () => {
    const { first, second } = instances;
    const owner = await new Tokens(first).user('owner');
    const { credentials, tokens } = await signedInConfidential(first, owner, 'read');
    /** A form POST to `path` under the token endpoint of `server`, as the client. */
    const post = (server: TestServer, path: string, form: Record<string, string>) =>
      fetch(`${server.url}/oauth/token${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(credentials.clientId, credentials.clientSecret) },
        body: new URLSearchParams(form).toString(),
      });
    const refresh = (server: TestServer) => post(server, '', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
    const read = (server: TestServer, accessToken: string) => fetch(`${server.url}/v1/projects`, { headers: { authorization: `Bearer ${accessToken}` } });

    expect((await refresh(first)).status, 'refreshed on the first instance, which now holds the token').toBe(200);
    expect((await post(second, '/revocation', { token: tokens.refresh_token!, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect((await refresh(second)).status, 'refused at once where it was revoked').toBe(400);

    // Within the hold: the first instance still refreshes, and the access token it issues names the revoked grant.
    const meanwhile = await refresh(first);
    expect(meanwhile.status).toBe(200);
    const issued = ((await meanwhile.json()) as { access_token: string }).access_token;
    expect((await read(second, issued)).status, 'refused at once where the revocation was made').toBe(401);

    first.clock.advance(first.config.revocationRefreshSeconds * 1000 + 1);
    expect((await refresh(first)).status, 'refused once the hold has ended').toBe(400);
    for (const server of [first, second]) expect((await read(server, issued)).status, 'refused on every instance within the bound').toBe(401);
  });
});
