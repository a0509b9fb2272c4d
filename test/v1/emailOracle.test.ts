import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerShape } from '../support/api.ts';
import { createProject, expectRefused, useApiServer } from '../support/fixtures.ts';
import { newId } from '../../src/lib/ids.ts';
import type { TestUser } from '../support/tokens.ts';
import { race } from '../support/concurrency.ts';

/*
 * Admin A cannot learn whether an e-mail is registered in account B: adding it answers as adding a
 * free address does (status, body shape, headers): both are invitations (docs/product.md §11), the
 * added user behaves the same on every /v1 route, and B's user keeps signing in. 409 stays for an
 * e-mail in A itself.
 */
const env = useApiServer();
let adminA: string;
let userB: TestUser;

beforeAll(async () => {
  const ownerA = await env.tokens.user('owner');
  adminA = await env.tokens.accessToken(ownerA, 'admin');
  userB = await env.tokens.user('developer');
});

const fresh = () => `free-${randomBytes(5).toString('hex')}@example.com`;

describe('adding a user whose e-mail signs in to another account', () => {
  for (const withPassword of [true, false]) {
    it(`answers as for a free e-mail, ${withPassword ? 'with a first password' : 'without one'}, and the user then behaves the same`, async () => {
      const body = (email: string) => ({ email, name: 'New Person', role: 'developer', ...(withPassword ? { password: 'a long enough password' } : {}) });
      const free = await env.api.post('/v1/users', { token: adminA, body: body(fresh()) });
      const known = await env.api.post('/v1/users', { token: adminA, body: body(userB.email) });
      expect(free.status).toBe(201);
      expect(answerShape(known)).toEqual(answerShape(free));
      expect(known.body.email).toBe(userB.email);
      expect(known.body.role).toBe('developer');
      expect(known.body.last_login_at).toBeNull();
      // Both are invitations, each with its one-time link; nothing was looked up about the address.
      for (const created of [free, known]) {
        expect(created.body.status).toBe('invited');
        expect(typeof created.body.invitation_url).toBe('string');
      }

      // Every route: listed, read, renamed, role changed, removed alike.
      const listed = await env.api.get('/v1/users?per_page=100', { token: adminA });
      const ids = listed.body.data.map((u: { id: string }) => u.id);
      expect(ids).toContain(free.body.id);
      expect(ids).toContain(known.body.id);
      for (const created of [free, known]) {
        expect((await env.api.get(`/v1/users/${created.body.id}`, { token: adminA })).status).toBe(200);
        expect((await env.api.patch(`/v1/users/${created.body.id}`, { token: adminA, body: { name: 'Renamed', role: 'viewer' } })).status).toBe(200);
      }
      // The same e-mail again in A: 409 for both, the same answer.
      const againFree = await env.api.post('/v1/users', { token: adminA, body: body(free.body.email) });
      const againKnown = await env.api.post('/v1/users', { token: adminA, body: body(userB.email) });
      expectRefused(againFree, 409, 'conflict');
      expectRefused(againKnown, 409, 'conflict');
      expect(againKnown.body.error.message).toBe(againFree.body.error.message);
      for (const created of [free, known]) expect((await env.api.delete(`/v1/users/${created.body.id}`, { token: adminA })).status).toBe(204);

      // B's user is untouched and still signs in with their own password.
      const b = await env.tokens.forUser(userB, 'read', { clientId: await env.tokens.publicClient(userB.accountId, true) });
      const me = await env.api.get('/v1/users/me', { token: b.access_token });
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(userB.id);
    });
  }

  it('many adds of the same e-mail at once in one account make exactly one user, whether the address is free or known elsewhere', async () => {
    for (const email of [fresh(), userB.email]) {
      const results = await race(12, () => env.api.post('/v1/users', { token: adminA, body: { email, name: 'Racer', role: 'viewer', password: 'a long enough password' } }));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of results.filter((r) => r.status !== 201)) expectRefused(r, 409, 'conflict');
      expect(await env.server.repos.users.collection.countDocuments({ email })).toBe(email === userB.email ? 2 : 1);
      expect((await env.api.delete(`/v1/users/${results.find((r) => r.status === 201)!.body.id}`, { token: adminA })).status).toBe(204);
    }
  });

  it('takes as long for a known e-mail as for a free one (measured, printed)', async () => {
    // Interleaved, so load on the machine weighs on both alike.
    const add = async (email: string) => {
      const started = performance.now();
      const res = await env.api.post('/v1/users', { token: adminA, body: { email, name: 'Timed', role: 'viewer' } });
      const took = performance.now() - started;
      expect(res.status).toBe(201);
      expect((await env.api.delete(`/v1/users/${res.body.id}`, { token: adminA })).status).toBe(204);
      return took;
    };
    const freeTimes: number[] = [];
    const knownTimes: number[] = [];
    for (let i = 0; i < 15; i++) {
      freeTimes.push(await add(fresh()));
      knownTimes.push(await add(userB.email));
    }
    const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const [free, known] = [median(freeTimes), median(knownTimes)];
    console.log(`POST /v1/users median: ${free.toFixed(1)} ms for a free e-mail, ${known.toFixed(1)} ms for an e-mail of another account`);
  });

  it('the operator is told: creating a user with an e-mail that signs in elsewhere is 409', async () => {
    const err = await env.server.services.users.createByOperator({ email: userB.email, name: 'Dup', role: 'owner', password: 'a long enough password' }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('conflict');
  });
});

describe("another account's records", () => {
  it('answer as ids that exist nowhere: the same status, body, headers, and time (measured, printed)', async () => {
    const tokenB = await env.tokens.accessToken(userB, 'write');
    const projectB = await createProject(env.api, tokenB);
    const deploymentB = (await env.api.post(`/v1/projects/${projectB.id}/deployments`, { token: tokenB, body: { environment: 'production', branch: 'main' } })).body.id as string;
    const pairs: [string, string][] = [
      [`/v1/projects/${projectB.id}`, `/v1/projects/${newId('project')}`],
      [`/v1/projects/${projectB.id}/deployments/${deploymentB}`, `/v1/projects/${newId('project')}/deployments/${newId('deployment')}`],
      [`/v1/users/${userB.id}`, `/v1/users/${newId('user')}`],
    ];
    const times = { other: [] as number[], none: [] as number[] };
    for (let round = 0; round < 30; round++)
      for (const [other, none] of pairs) {
        const timed = async (path: string, into: number[]) => {
          const started = performance.now();
          const res = await env.api.get(path, { token: adminA });
          into.push(performance.now() - started);
          return res;
        };
        // Alternating which goes first, so warm caches favour neither.
        const [a, b] = round % 2 ? [await timed(other, times.other), await timed(none, times.none)] : (([y, x]) => [x, y])([await timed(none, times.none), await timed(other, times.other)]);
        expectRefused(a, 404, 'not_found');
        expect(answerShape(a)).toEqual(answerShape(b));
        expect(a.body.error.message).toBe(b.body.error.message);
      }
    const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    console.log(`GET of another account's record: median ${median(times.other).toFixed(1)} ms; of an id that exists nowhere: ${median(times.none).toFixed(1)} ms`);
  });
});
