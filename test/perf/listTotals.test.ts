import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../support/api.ts';
import { useApiServer } from '../support/fixtures.ts';
import { startAnotherInstance, type TestServer } from '../support/server.ts';
import type { Tokens } from '../support/tokens.ts';
import { race } from '../support/concurrency.ts';

/**
 * A list's `total` is exact after any write, from any instance. The embedded database keeps counts per
 * collection write generation (tools/ferretdb/patches/0005-…): identical lists between writes are
 * answered from the kept count, and every write ends it. Here lists are repeated between writes of
 * every kind made through the API on both instances, and lists run while projects are created and
 * deleted at once on both.
 */
const env = useApiServer();
let server: TestServer, other: TestServer, api: Api, otherApi: Api, tokens: Tokens;
beforeAll(async () => {
  ({ server, api, tokens } = env);
  other = await startAnotherInstance(server);
  otherApi = await Api.connect(other.url);
});
afterAll(async () => {
  await other?.stop();
});

async function freshAccount(): Promise<string> {
  const owner = await tokens.user('owner');
  return await tokens.accessToken(owner, 'read write admin');
}

async function total(client: Api, token: string, path = '/v1/projects?per_page=2'): Promise<number> {
  const res = await client.get(path, { token });
  expect(res.status).toBe(200);
  return res.body.pagination.total as number;
}

/** The total twice on each instance: all four must be `want`. */
async function expectTotal(token: string, want: number, path?: string): Promise<void> {
  expect([await total(api, token, path), await total(api, token, path), await total(otherApi, token, path), await total(otherApi, token, path)]).toEqual([want, want, want, want]);
}

describe('list totals', () => {
  it('follow every write between two identical lists: create, rename, delete, on either instance', async () => {
    const token = await freshAccount();
    await expectTotal(token, 0);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await (i % 2 ? otherApi : api).post('/v1/projects', { token, body: { name: `totals-${i}` } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
      await expectTotal(token, i + 1);
    }
    // an update changes no count, and the count stays exact
    expect((await otherApi.patch(`/v1/projects/${ids[0]}`, { token, body: { name: 'totals-renamed' } })).status).toBe(200);
    await expectTotal(token, 3);
    expect((await api.delete(`/v1/projects/${ids[1]}`, { token })).status).toBe(204);
    await expectTotal(token, 2);
    expect((await otherApi.delete(`/v1/projects/${ids[2]}`, { token })).status).toBe(204);
    await expectTotal(token, 1);
    // another account's writes leave this account's total as it is
    const theirs = await freshAccount();
    expect((await api.post('/v1/projects', { token: theirs, body: { name: 'theirs' } })).status).toBe(201);
    await expectTotal(token, 1);
    await expectTotal(theirs, 1);
  });

  it("deployments' totals follow creations on both instances", async () => {
    const token = await freshAccount();
    const project = await api.post('/v1/projects', { token, body: { name: 'with-deployments' } });
    expect(project.status).toBe(201);
    const path = `/v1/projects/${project.body.id}/deployments?per_page=2`;
    await expectTotal(token, 0, path);
    for (let i = 0; i < 4; i += 1) {
      const res = await (i % 2 ? otherApi : api).post(`/v1/projects/${project.body.id}/deployments`, { token, body: { environment: 'production', branch: `b${i}` } });
      expect(res.status).toBe(201);
      await expectTotal(token, i + 1, path);
    }
  });

  it('lists racing creations and deletions on two instances stay within what had surely happened and what may have, and end exact', async () => {
    const token = await freshAccount();
    const creates = 24;
    let createsStarted = 0;
    let createsDone = 0;
    let deletesStarted = 0;
    let deletesDone = 0;
    const seen: number[] = [];
    let writing = true;

    const writer = async (i: number) => {
      const client = i % 2 ? otherApi : api;
      createsStarted += 1;
      const res = await client.post('/v1/projects', { token, body: { name: `race-${i}` } });
      createsDone += 1;
      expect(res.status).toBe(201);
      if (i % 4 === 3) {
        deletesStarted += 1;
        const gone = await (i % 8 === 3 ? api : otherApi).delete(`/v1/projects/${res.body.id}`, { token });
        deletesDone += 1;
        expect(gone.status).toBe(204);
      }
    };
    const reader = async (client: Api) => {
      while (writing) {
        const [created, deleted] = [createsDone, deletesDone];
        const n = await total(client, token);
        // at least what was surely there when the list started, at most what may have been there when it answered
        expect(n).toBeGreaterThanOrEqual(created - deletesStarted);
        expect(n).toBeLessThanOrEqual(createsStarted - deleted);
        seen.push(n);
      }
    };

    const readers = [reader(api), reader(api), reader(otherApi), reader(otherApi)];
    try {
      await race(creates, (i) => writer(i));
    } finally {
      writing = false;
      await Promise.allSettled(readers);
    }
    await Promise.all(readers);

    const want = creates - creates / 4;
    await expectTotal(token, want);
    console.log(`list totals racing ${creates} creations and ${creates / 4} deletions on two instances: ${seen.length} lists, totals seen ${[...new Set(seen)].sort((a, b) => a - b).join(', ')}`);
    expect(seen.length).toBeGreaterThan(4);
  });
});
