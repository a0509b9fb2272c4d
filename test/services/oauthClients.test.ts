import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Db } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../support/oauthDriver.ts';
import { sha256Hex } from '../../src/lib/hash.ts';
import { newId } from '../../src/lib/ids.ts';
import { createAdapterClass } from '../../src/repositories/oidcStore.ts';
import type { ServiceContext } from '../../src/services/events.ts';
import {
  deleteClient,
  getClient,
  hashClientSecret,
  listClients,
  presentClient,
  registerClient,
  rotateClientSecret,
  type RegisterClientInput,
} from '../../src/services/oauthClients.ts';
import { dumpDatabase } from '../support/database.ts';
import { rejection, useTestServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';

const server = useTestServer();
const tokens = new Tokens(server);
let db: Db;
let repos: TestServer['repos'] & { changes: TestServer['running']['container']['changes'] };

beforeAll(() => {
  db = server.running.container.database.db;
  repos = { ...server.repos, changes: server.running.container.changes };
});

async function ownerContext(): Promise<ServiceContext & { userId: string }> {
  const owner = await tokens.user('owner');
  return { accountId: owner.accountId, actor: { type: 'user', id: owner.id }, userId: owner.id };
}

const confidential: RegisterClientInput = { client_name: 'Deploy bot', token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], scope: 'read' };

describe('OAuth clients of an account', () => {
  it('registers in the actor\'s account only, lists and reads per account', async () => {
    const ctx = await ownerContext();
    const a = await registerClient(repos, ctx, { client_name: 'SPA', redirect_uris: ['https://app.example.com/cb'] });
    const b = await registerClient(repos, ctx, confidential);
    expect(a.clientSecret).toBeNull();
    expect(b.clientSecret).toMatch(/^slwcs_/);
    expect(a.client.account_id).toBe(ctx.accountId);
    const sneaky = await rejection(registerClient(repos, ctx, { ...confidential, account_id: newId('acct') } as never));
    expect(sneaky.code).toBe('validation_failed');

    const listed = await listClients(repos, ctx.accountId, { page: 1, per_page: 1 });
    expect(listed.total).toBe(2);
    expect(listed.items.map((c) => c._id)).toEqual([a.client._id]);
    expect((await listClients(repos, newId('acct'), { page: 1, per_page: 10 })).total).toBe(0);
    expect((await getClient(repos, ctx.accountId, b.client._id)).client_name).toBe('Deploy bot');
    expect((await rejection(getClient(repos, newId('acct'), b.client._id))).code).toBe('not_found');
    expect(presentClient(b.client)).not.toHaveProperty('client_secret_hash');

    const created = await repos.events.page(ctx.accountId, { type: 'oauth_client.created' }, { page: 1, per_page: 10 });
    expect(created.total).toBe(2);
    expect(JSON.stringify(created.items)).not.toContain(b.clientSecret);
  });

  it('rotates a confidential client\'s secret: the old one stops at once, the new one is shown once', async () => {
    const ctx = await ownerContext();
    const { client, clientSecret } = await registerClient(repos, ctx, confidential);
    await tokenRequest(server.issuer, { clientId: client._id, clientSecret: clientSecret! }, { grant_type: 'client_credentials', scope: 'read' });

    const rotated = await rotateClientSecret(repos, ctx, client._id);
    expect(rotated.clientSecret).not.toBe(clientSecret);
    expect(rotated.client.client_secret_hash).toBe(hashClientSecret(rotated.clientSecret));
    await expect(tokenRequest(server.issuer, { clientId: client._id, clientSecret: clientSecret! }, { grant_type: 'client_credentials', scope: 'read' })).rejects.toThrow(
      /401 invalid_client/,
    );
    const fresh = await tokenRequest(server.issuer, { clientId: client._id, clientSecret: rotated.clientSecret }, { grant_type: 'client_credentials', scope: 'read' });
    expect(fresh.access_token).toBeTruthy();
    expect(await dumpDatabase(db)).not.toContain(rotated.clientSecret);

    const spa = await registerClient(repos, ctx, { client_name: 'SPA', redirect_uris: ['https://app.example.com/cb'] });
    expect((await rejection(rotateClientSecret(repos, ctx, spa.client._id))).code).toBe('conflict');
    expect((await rejection(rotateClientSecret(repos, { ...ctx, accountId: newId('acct') }, client._id))).code).toBe('not_found');
    expect((await repos.events.page(ctx.accountId, { type: 'oauth_client.secret_rotated' }, { page: 1, per_page: 10 })).total).toBe(1);
  });

  it('deleting a client revokes every grant made to it, and nothing of other clients', async () => {
    const owner = await tokens.user('owner');
    const ctx: ServiceContext = { accountId: owner.accountId, actor: { type: 'user', id: owner.id } };
    const doomed = await tokens.publicClient(owner.accountId, true);
    const kept = await tokens.publicClient(owner.accountId, true);
    const viaDoomed = await tokens.forUser(owner, 'read', { clientId: doomed, withRefresh: true });
    const viaKept = await tokens.forUser(owner, 'read', { clientId: kept, withRefresh: true });
    // A grant the consents collection does not point at (found by its payload).
    const Adapter = createAdapterClass(db, repos.oauthClients);
    const stray = `g_${randomBytes(8).toString('hex')}`;
    await new Adapter('Grant').upsert(stray, { kind: 'Grant', jti: stray, accountId: owner.id, clientId: doomed }, 3600);

    const { revokedGrants } = await deleteClient(repos, ctx, doomed);
    expect(revokedGrants).toBe(2);
    const doomedGid = decodeJwt(viaDoomed.access_token).gid as string;
    const keptGid = decodeJwt(viaKept.access_token).gid as string;
    expect(await repos.revokedGrants.collection.findOne({ _id: doomedGid })).not.toBeNull();
    expect(await repos.revokedGrants.collection.findOne({ _id: stray })).not.toBeNull();
    expect(await repos.revokedGrants.collection.findOne({ _id: keptGid })).toBeNull();
    expect(await db.collection('oidc_grant').findOne({ _id: sha256Hex(doomedGid) as never })).toBeNull();
    expect(await repos.consents.grantIdsForClient(doomed)).toEqual([]);

    await expect(tokenRequest(server.issuer, { clientId: doomed }, { grant_type: 'refresh_token', refresh_token: viaDoomed.refresh_token! })).rejects.toThrow(/invalid_client/);
    const refreshed = await tokenRequest(server.issuer, { clientId: kept }, { grant_type: 'refresh_token', refresh_token: viaKept.refresh_token! });
    expect(refreshed.access_token).toBeTruthy();

    expect((await rejection(getClient(repos, ctx.accountId, doomed))).code).toBe('not_found');
    expect((await rejection(deleteClient(repos, ctx, doomed))).code).toBe('not_found');
    const [event] = (await repos.events.page(ctx.accountId, { type: 'oauth_client.deleted' }, { page: 1, per_page: 1 })).items;
    expect(event!.data).toMatchObject({ client_id: doomed, revoked_grants: 2 });
  });
});
