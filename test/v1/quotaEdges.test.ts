import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type ApiResponse } from '../support/api.ts';
import { newId } from '../../src/lib/ids.ts';
import { QuotaService } from '../../src/services/quotas.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { expectRefused } from '../support/fixtures.ts';
import { startAnotherInstance, startTestServer, type TestServer } from '../support/server.ts';
import { race } from '../support/concurrency.ts';

/*
 * Quotas where the count is not just the slots a create can take (docs/security.md, "Quotas and
 * tenant isolation"): resources the operator made (counted, never limited), and a quota lowered below what an
 * account holds. Concurrent creates must never take the count past the limit, on one instance or two.
 * Four instances share one database: two with an OAuth-client quota of 4, two where it was lowered to 3.
 */
const QUOTA = 4;
const LOWERED = 3;
let a: TestServer;
let b: TestServer;
let lowA: TestServer;
let lowB: TestServer;
const apis = new Map<TestServer, Api>();

beforeAll(async () => {
  a = await startTestServer({ overrides: { quotaOauthClients: QUOTA } });
  [b, lowA, lowB] = await Promise.all([
    startAnotherInstance(a, { quotaOauthClients: QUOTA }),
    startAnotherInstance(a, { quotaOauthClients: LOWERED }),
    startAnotherInstance(a, { quotaOauthClients: LOWERED }),
  ]);
  for (const server of [a, b, lowA, lowB]) apis.set(server, await Api.connect(server.url));
});
afterAll(async () => {
  await Promise.all([a, b, lowA, lowB].map((s) => s?.stop()));
});

/** An owner of a new account and a credential of theirs that adds no client of its own (a dashboard session token). */
async function newOwner() {
  const user = await makeUser(a, { role: 'owner' });
  const { token } = await a.running.container.sessions.create(user._id, user.account_id);
  return { accountId: user.account_id, token };
}

const register = (server: TestServer, token: string, name: string) =>
  apis.get(server)!.post('/v1/oauth_clients', { token, body: { client_name: name, redirect_uris: ['https://app.example.com/cb'] } });

async function remove(token: string, clientId: string): Promise<void> {
  expect((await apis.get(a)!.delete(`/v1/oauth_clients/${clientId}`, { token })).status).toBe(204);
}

/** `n` registrations at once, spread over `servers`; each refusal must be quota_exceeded. */
async function registerAtOnce(servers: TestServer[], token: string, n: number): Promise<ApiResponse[]> {
  const results = await race(n, (i) => register(servers[i % servers.length]!, token, `race ${i}`));
  for (const r of results.filter((r) => r.status !== 201)) expectRefused(r, 403, 'quota_exceeded');
  return results.filter((r) => r.status === 201);
}

async function held(accountId: string) {
  return {
    clients: await a.repos.oauthClients.collection.countDocuments({ account_id: accountId }),
    slots: await a.repos.quotaSlots.count(accountId, 'oauth_clients'),
  };
}

describe('resources the operator added count against the quota', () => {
  for (const instances of [1, 2]) {
    it(`1 slot free beside the operator's clients, 10 registrations at once on ${instances} instance(s): exactly 1 is made`, async () => {
      const { accountId, token } = await newOwner();
      const servers = instances === 1 ? [a] : [a, b];
      // The operator's client (slipway clients create): counted, outside the quota's own numbers.
      await makeClient(a, { account_id: accountId });
      const mine: string[] = [];
      for (let i = 0; i < QUOTA - 1; i++) {
        const res = await register(a, token, `app ${i}`);
        expect(res.status).toBe(201);
        mine.push(res.body.client_id);
      }
      expectRefused(await register(a, token, 'over'), 403, 'quota_exceeded');
      // Another of the operator's, past the quota (allowed: the operator is not limited).
      await makeClient(a, { account_id: accountId });
      expect(await held(accountId)).toEqual({ clients: QUOTA + 1, slots: QUOTA + 1 });
      // The admin deletes the two oldest: 3 held, so 1 may be made.
      await remove(token, mine[0]!);
      await remove(token, mine[1]!);

      const made = await registerAtOnce(servers, token, 10);
      expect(made).toHaveLength(1);
      expect(await held(accountId)).toEqual({ clients: QUOTA, slots: QUOTA });
      expectRefused(await register(servers.at(-1)!, token, 'still over'), 403, 'quota_exceeded');
    });
  }
});

describe('a quota lowered below what an account holds', () => {
  it('no registration until the account is under it; then, 10 at once over two instances make exactly as many as it is under by', async () => {
    const { accountId, token } = await newOwner();
    const mine: string[] = [];
    for (let i = 0; i < QUOTA; i++) {
      const res = await register(a, token, `app ${i}`);
      expect(res.status).toBe(201);
      mine.push(res.body.client_id);
    }
    // Lowered to 3 with 4 held: refused, however many try at once.
    expect(await registerAtOnce([lowA, lowB], token, 10)).toHaveLength(0);
    // Deleting the two oldest leaves 2 held: 1 may be made (not the 2 quota numbers left free below 3).
    await remove(token, mine[0]!);
    await remove(token, mine[1]!);
    expect(await registerAtOnce([lowA, lowB], token, 10)).toHaveLength(1);
    expect(await held(accountId)).toEqual({ clients: LOWERED, slots: LOWERED });
    // A delete frees a slot again, for one registration.
    await remove(token, mine[3]!);
    expect(await registerAtOnce([lowA, lowB], token, 10)).toHaveLength(1);
    expect(await held(accountId)).toEqual({ clients: LOWERED, slots: LOWERED });
    // The quota's use as shown on the Account page.
    const usage = await lowA.services.quotas.usage({ accountId });
    expect(usage.find((q) => q.kind === 'oauth_clients')).toEqual({ kind: 'oauth_clients', used: LOWERED, limit: LOWERED });
  });
});

describe('a slot the operator adds while a create is under way', () => {
  it('a create whose slot would take the count past the limit once both are in gives it back: 403, nothing is created', async () => {
    const { accountId } = await newOwner();
    const slots = a.repos.quotaSlots;
    for (let i = 0; i < QUOTA - 1; i++) await slots.tryInsert(accountId, 'oauth_clients', newId('oauthClient'), i);
    // The operator's client lands between this create's read of the slots and its insert.
    const racing = Object.create(slots) as typeof slots;
    racing.tryInsert = async (...args) => {
      await slots.insertUnlimited(accountId, 'oauth_clients', newId('oauthClient'));
      return await slots.tryInsert(...args);
    };
    const quotas = new QuotaService({ quotaSlots: racing, limits: { oauth_clients: QUOTA, projects: 1, api_keys: 1, webhooks: 1, users: 1 } });
    let created = false;
    const attempt = quotas.withSlot({ kind: 'user', accountId }, 'oauth_clients', newId('oauthClient'), async () => (created = true));
    await expect(attempt).rejects.toMatchObject({ status: 403, code: 'quota_exceeded' });
    expect(created).toBe(false);
    expect(await slots.count(accountId, 'oauth_clients')).toBe(QUOTA);
  });
});
