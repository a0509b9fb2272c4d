import { describe, expect, it } from 'vitest';
import type { AppError } from '../../src/errors.ts';
import type { PageRequest } from '../../src/domain/page.ts';
import { newId } from '../../src/lib/ids.ts';
import type { EventFilter } from '../../src/repositories/events.ts';
import { systemPrincipal, type Principal } from '../../src/domain/principal.ts';
import { presentEvent } from '../../src/presenters/events.ts';
import { actorOf } from '../../src/services/eventLog.ts';
import { EventService } from '../../src/services/events.ts';
import { buildEventLog } from '../support/services.ts';
import { useTestDatabase } from '../support/fixtures.ts';

const t = useTestDatabase();
const list = (principal: Principal, filter: EventFilter, page: PageRequest) => new EventService(t.repos).list(principal, filter, page);
const eventLog = () => buildEventLog(t.repos);

describe('events (audit log)', () => {
  it('pages newest first, filters by type and project, and keeps accounts apart', async () => {
    const accountId = newId('account');
    const actor = actorOf({ kind: 'api_key', id: newId('apiKey') });
    const p1 = newId('project');
    const p2 = newId('project');
    const base = Date.now();
    const types = ['project.created', 'configuration.created', 'configuration.updated', 'api_key.created', 'configuration.deleted'] as const;
    for (const [i, type] of types.entries())
      await eventLog().record(type, actor, { account_id: accountId, project_id: i % 2 ? p2 : p1 }, { n: i }, new Date(base + i));
    await eventLog().record('project.created', actor, { account_id: newId('account') });

    const admin = systemPrincipal(accountId);
    const all = await list(admin, {}, { page: 1, per_page: 2 });
    expect(all.total).toBe(5);
    expect(all.items.map((e) => e.data.n)).toEqual([4, 3]);
    const last = await list(admin, {}, { page: 3, per_page: 2 });
    expect(last.items.map((e) => e.data.n)).toEqual([0]);
    expect((await list(admin, { type: 'configuration.updated' }, { page: 1, per_page: 10 })).items.map((e) => e.data.n)).toEqual([2]);
    expect((await list(admin, { project_id: p2 }, { page: 1, per_page: 10 })).items.map((e) => e.data.n)).toEqual([3, 1]);
    expect((await list(admin, { type: 'configuration.created', project_id: p1 }, { page: 1, per_page: 10 })).total).toBe(0);
    // An API key reads its own project's events only.
    const key: Principal = { kind: 'api_key', id: actor.id, accountId, scopes: new Set(['read']), projectId: p2, credential: 'api_key' };
    expect((await list(key, {}, { page: 1, per_page: 10 })).items.map((e) => e.data.n)).toEqual([3, 1]);
    expect((await list(key, { project_id: p1 }, { page: 1, per_page: 10 })).total).toBe(0);

    const presented = presentEvent(all.items[0]!);
    expect(presented).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'configuration.deleted',
      actor: { type: 'api_key', id: actor.id },
      project_id: p1,
      data: { n: 4 },
      created_at: new Date(base + 4).toISOString(),
    });
  });

  it('stores no dotted or $-led field names and refuses bad paging', async () => {
    const accountId = newId('account');
    const doc = await eventLog().record('user.updated', { type: 'system', id: 'cli' }, { account_id: accountId }, { 'a.b': 1, $where: 'x', nested: { 'c.d': [{ $e: 2 }] }, skip: undefined });
    expect(doc.data).toEqual({ a_b: 1, _where: 'x', nested: { c_d: [{ _e: 2 }] } });
    const stored = await t.repos.events.collection.findOne({ _id: doc._id });
    expect(stored!.data).toEqual(doc.data);
    expect(stored!.project_id).toBeNull();

    for (const page of [{ page: 0, per_page: 10 }, { page: 1, per_page: 0 }, { page: 1, per_page: 101 }, { page: 1.5, per_page: 10 }]) {
      await expect(list(systemPrincipal(accountId), {}, page)).rejects.toMatchObject({ code: 'invalid_request', status: 400 } satisfies Partial<AppError>);
    }
  });
});
