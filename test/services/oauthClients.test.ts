import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Db } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenRequest } from '../support/oauthDriver.ts';
import { sha256Hex } from '../../src/lib/hash.ts';
import { newId } from '../../src/lib/ids.ts';
import { createAdapterClass } from '../../src/repositories/oidc/index.ts';
import { systemPrincipal, type Principal } from '../../src/domain/principal.ts';
import type { AppError } from '../../src/errors.ts';
import { presentClient } from '../../src/presenters/oauthClients.ts';
import { RegisterClientBody } from '../../src/schemas/oauthClients.ts';
import { parseInput } from '../../src/schemas/parse.ts';
import { hashClientSecret, type OAuthClientService } from '../../src/services/oauthClients.ts';
import { dumpDatabase } from '../support/database.ts';
import { rejection, useTestServer } from '../support/fixtures.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';

const server = useTestServer();
const tokens = new Tokens(server);
let db: Db;
let repos: TestServer['repos'];
let clients: OAuthClientService;

beforeAll(() => {
  db = server.running.container.database.db;
  repos = server.repos;
  clients = server.services.oauthClients;
});

/** An owner of a new account, as their access token makes them. */
async function owner(): Promise<Principal> {
  const user = await tokens.user('owner');
  return { kind: 'user', id: user.id, accountId: user.accountId, role: 'owner', scopes: new Set(['read', 'write', 'admin']), credential: 'access_token' };
}

/** In another account. */
const stranger = (principal: Principal): Principal => ({ ...principal, accountId: newId('account') });

const oauthEvents = (principal: Principal, type: 'oauth_client.created' | 'oauth_client.secret_rotated' | 'oauth_client.deleted', per_page = 10) =>
  server.services.events.list(principal, { type }, { page: 1, per_page });

/** The 422 details parseInput gives for a registration body (as the route and the dashboard do). */
function refusedBody(body: unknown): AppError {
  try {
    parseInput(RegisterClientBody, body);
  } catch (err) {
    return err as AppError;
  }
  throw new Error('accepted');
}

const confidential: RegisterClientBody = { client_name: 'Deploy bot', token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'], scope: 'read' };

describe('OAuth clients of an account', () => {
  it('registers in the actor\'s account only, lists and reads per account', async () => {
    const me = await owner();
    const a = await clients.register(me, { client_name: 'SPA', redirect_uris: ['https://app.example.com/cb'] });
    const b = await clients.register(me, confidential);
    expect(a.clientSecret).toBeNull();
    expect(b.clientSecret).toMatch(/^slwcs_/);
    expect(a.client.account_id).toBe(me.accountId);
    // The registration body cannot name an account: the principal's it is.
    expect(refusedBody({ ...confidential, account_id: newId('account') }).details).toEqual([{ field: 'account_id', message: 'is not a recognised field' }]);

    const listed = await clients.list(me, { page: 1, per_page: 1 });
    expect(listed.total).toBe(2);
    expect(listed.items.map((c) => c._id)).toEqual([a.client._id]);
    expect((await clients.list(stranger(me), { page: 1, per_page: 10 })).total).toBe(0);
    expect((await clients.get(me, b.client._id)).client_name).toBe('Deploy bot');
    expect((await rejection(clients.get(stranger(me), b.client._id))).code).toBe('not_found');
    expect(presentClient(b.client)).not.toHaveProperty('client_secret_hash');

    const created = await oauthEvents(me, 'oauth_client.created');
    expect(created.total).toBe(2);
    expect(JSON.stringify(created.items)).not.toContain(b.clientSecret);
  });

  it('first-party clients come from the operator only', async () => {
    const me = await owner();
    expect(refusedBody({ ...confidential, first_party: true }).details).toEqual([
      { field: 'first_party', message: 'only the operator can register a first-party client (slipway clients create --first-party)' },
    ]);
    const ours = { client_name: 'Ours', redirect_uris: ['https://app.example.com/cb'], first_party: true };
    expect((await rejection(clients.registerAsOperator(me, ours))).code).toBe('forbidden');
    const made = await clients.registerAsOperator(systemPrincipal(me.accountId), ours);
    expect(made.client).toMatchObject({ account_id: me.accountId, first_party: true, grant_types: ['authorization_code', 'refresh_token'], scope: 'read write admin' });
    expect((await clients.get(me, made.client._id)).first_party).toBe(true);
    expect((await rejection(clients.registerAsOperator(systemPrincipal(newId('account')), ours))).details).toEqual([{ field: 'account_id', message: 'no such account' }]);
  });

  it('rotates a confidential client\'s secret: the old one stops at once, the new one is shown once', async () => {
    const me = await owner();
    const { client, clientSecret } = await clients.register(me, confidential);
    await tokenRequest(server.issuer, { clientId: client._id, clientSecret: clientSecret! }, { grant_type: 'client_credentials', scope: 'read' });

    const rotated = await clients.rotateSecret(me, client._id);
    expect(rotated.clientSecret).not.toBe(clientSecret);
    expect(rotated.client.client_secret_hash).toBe(hashClientSecret(rotated.clientSecret));
    await expect(tokenRequest(server.issuer, { clientId: client._id, clientSecret: clientSecret! }, { grant_type: 'client_credentials', scope: 'read' })).rejects.toThrow(
      /401 invalid_client/,
    );
    const fresh = await tokenRequest(server.issuer, { clientId: client._id, clientSecret: rotated.clientSecret }, { grant_type: 'client_credentials', scope: 'read' });
    expect(fresh.access_token).toBeTruthy();
    expect(await dumpDatabase(db)).not.toContain(rotated.clientSecret);

    const spa = await clients.register(me, { client_name: 'SPA', redirect_uris: ['https://app.example.com/cb'] });
    expect((await rejection(clients.rotateSecret(me, spa.client._id))).code).toBe('conflict');
    expect((await rejection(clients.rotateSecret(stranger(me), client._id))).code).toBe('not_found');
    expect((await oauthEvents(me, 'oauth_client.secret_rotated')).total).toBe(1);
  });

  it('deleting a client revokes every grant made to it, and nothing of other clients', async () => {
    const user = await tokens.user('owner');
    const me: Principal = { kind: 'user', id: user.id, accountId: user.accountId, role: 'owner', scopes: new Set(['read', 'write', 'admin']), credential: 'access_token' };
    const doomed = await tokens.publicClient(user.accountId, true);
    const kept = await tokens.publicClient(user.accountId, true);
    const viaDoomed = await tokens.forUser(user, 'read', { clientId: doomed, withRefresh: true });
    const viaKept = await tokens.forUser(user, 'read', { clientId: kept, withRefresh: true });
    // A grant the consents collection does not point at (found by its payload).
    const Adapter = createAdapterClass(db, repos.oauthClients);
    const stray = `g_${randomBytes(8).toString('hex')}`;
    await new Adapter('Grant').upsert(stray, { kind: 'Grant', jti: stray, accountId: user.id, clientId: doomed }, 3600);

    const { revokedGrants } = await clients.delete(me, doomed);
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

    expect((await rejection(clients.get(me, doomed))).code).toBe('not_found');
    expect((await rejection(clients.delete(me, doomed))).code).toBe('not_found');
    const [event] = (await oauthEvents(me, 'oauth_client.deleted', 1)).items;
    expect(event!.data).toMatchObject({ client_id: doomed, revoked_grants: 2 });
  });
});
