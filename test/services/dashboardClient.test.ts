import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CLIENT_ID, dashboardRedirectUri, type FormClaim } from '../../src/services/dashboardClient.ts';
import { newId } from '../../src/lib/ids.ts';
import { useTestServer } from '../support/fixtures.ts';
import { startAnotherInstance, startTestServer, type TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';
import { race } from '../support/concurrency.ts';

const server = useTestServer();
const tokens = new Tokens(server);
let other: TestServer;

beforeAll(async () => {
  other = await startAnotherInstance(server);
});
afterAll(async () => {
  await other?.stop();
});

const clientRecords = () => server.repos.oauthClients.collection.find({ _id: DASHBOARD_CLIENT_ID }).toArray();
const onceToken = () => randomBytes(16).toString('base64url');

describe("the dashboard's own OAuth client", () => {
  it('is registered at start: a first-party public client whose redirect URI is this PUBLIC_URL', async () => {
    const [client] = await clientRecords();
    expect(client).toMatchObject({
      account_id: 'system',
      client_name: 'Slipway Dashboard',
      redirect_uris: [dashboardRedirectUri(server.config)],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      scope: 'read',
      first_party: true,
      client_secret_hash: null,
    });
    expect(dashboardRedirectUri(server.config)).toBe(`${server.url}/dashboard/callback`);
  });

  it('stays one record, its creation time kept, when registered many times at once on one instance and on two', async () => {
    const [before] = await clientRecords();
    for (const instances of [[server], [server, other]]) {
      await race(20, (i) => instances[i % instances.length]!.services.dashboardClient.ensureRegistered());
      const records = await clientRecords();
      console.log(`[dashboard client] registered 20× at once on ${instances.length} instance(s): ${records.length} record(s)`);
      expect(records).toHaveLength(1);
      expect(records[0]!.created_at).toEqual(before!.created_at);
      expect(records[0]!.updated_at.getTime()).toBeGreaterThanOrEqual(before!.updated_at.getTime());
    }
  });

  it("follows PUBLIC_URL: an instance started with another one moves the redirect URI, and says so on the change emitter", async () => {
    const moved = await startTestServer({ dbName: server.config.mongodbDb, keysDir: server.config.keysDir });
    try {
      expect((await clientRecords())[0]!.redirect_uris).toEqual([`${moved.url}/dashboard/callback`]);
      let told = 0;
      const changes = server.running.container.changes;
      const listener = () => void (told += 1);
      changes.on('oauthClientsChanged', listener);
      await server.services.dashboardClient.ensureRegistered();
      changes.off('oauthClientsChanged', listener);
      expect(told).toBe(1);
      expect((await clientRecords())[0]!.redirect_uris).toEqual([`${server.url}/dashboard/callback`]);
      // The token endpoint's cached read sees the record as written.
      expect((await server.repos.oauthClients.findByIdCached(DASHBOARD_CLIENT_ID))!.redirect_uris).toEqual([`${server.url}/dashboard/callback`]);
    } finally {
      await moved.stop();
    }
  });
});

describe('the user of a sign-in or session', () => {
  it('is the stored user, or null when there is none', async () => {
    const user = await tokens.user('developer');
    const found = await server.services.dashboardClient.user(user.id);
    expect(found).toMatchObject({ _id: user.id, email: user.email, account_id: user.accountId, role: 'developer' });
    expect(await server.services.dashboardClient.user(undefined)).toBeNull();
    expect(await server.services.dashboardClient.user(newId('user'))).toBeNull();
  });
});

describe("a form's one-time claim", () => {
  it('refuses a malformed token', async () => {
    const claims = server.services.dashboardClient;
    for (const token of [undefined, '', 'short', 42, ['a'], `${onceToken()}x`]) expect(await claims.claimForm('session-1', token)).toBeNull();
  });

  it('is won by exactly one of many submissions at once, on one instance and on two', async () => {
    for (const instances of [[server], [server, other]]) {
      const counts: number[] = [];
      for (let round = 0; round < 5; round++) {
        const token = onceToken();
        const session = `session-${randomBytes(4).toString('hex')}`;
        const claims = await race(20, (i) => instances[i % instances.length]!.services.dashboardClient.claimForm(session, token));
        const won = claims.filter((c): c is FormClaim => c !== null);
        counts.push(won.length);
        await won[0]?.succeeded();
        // Used: never claimable again.
        expect(await server.services.dashboardClient.claimForm(session, token)).toBeNull();
      }
      console.log(`[single use] dashboard form token posted 20× at once on ${instances.length} instance(s): claims won per round ${counts.join(', ')}`);
      expect(counts).toEqual([1, 1, 1, 1, 1]);
    }
  });

  it('is released when the submission failed (the same form may be sent again), and is per session', async () => {
    const claims = server.services.dashboardClient;
    const token = onceToken();
    const first = await claims.claimForm('session-a', token);
    expect(first).not.toBeNull();
    // The same token of another session is another form.
    expect(await claims.claimForm('session-b', token)).not.toBeNull();
    expect(await claims.claimForm('session-a', token)).toBeNull();
    await first!.failed();
    const again = await claims.claimForm('session-a', token);
    expect(again).not.toBeNull();
    await again!.succeeded();
    expect(await claims.claimForm('session-a', token)).toBeNull();
  });
});
