import type { CommandStartedEvent, Document, IndexDescription } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';

/**
 * FerretDB pushes down only `{_id: …}`; production runs on MongoDB, where every list must be served by
 * an index. Every list endpoint is called for real (with each of its filters); the driver's command
 * monitoring records each find and count it sends, and each is matched against the indexes the
 * repositories declare (read back from the database, as `slipway db migrate` made them).
 *
 * An index serves a query when its keys start with some of the query's equality fields (at least one
 * when the query filters at all: a scan of the whole collection is not served), followed directly by
 * the sort keys in order, all in the index's direction or all reversed. Filter fields beyond that
 * prefix are checked on the documents the index yields.
 */
const env = useApiServer({ overrides: { webhookAllowLoopback: true, webhookPollIntervalMs: 60_000, sweepIntervalSeconds: 3600 } });
let api: Api;
let token: string;

interface ListQuery {
  collection: string;
  filter: Document;
  sort: [string, number][];
}

function isOperatorObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date) && Object.keys(value).some((k) => k.startsWith('$'));
}

export function servedBy(query: ListQuery, index: Record<string, number>): boolean {
  const keys = Object.entries(index);
  const equality = new Set(Object.entries(query.filter).filter(([field, value]) => !field.startsWith('$') && !isOperatorObject(value)).map(([field]) => field));
  let prefix = 0;
  while (prefix < keys.length && equality.has(keys[prefix]![0]) && !query.sort.some(([field]) => field === keys[prefix]![0])) prefix += 1;
  if (Object.keys(query.filter).length > 0 && prefix === 0) return false;
  if (query.sort.length === 0) return true;
  const following = keys.slice(prefix, prefix + query.sort.length);
  if (following.length < query.sort.length) return false;
  const same = query.sort.every(([field, dir], i) => following[i]![0] === field && following[i]![1] === dir);
  const reversed = query.sort.every(([field, dir], i) => following[i]![0] === field && following[i]![1] === -dir);
  return same || reversed;
}

function listQuery(event: CommandStartedEvent): ListQuery | undefined {
  const command = event.command;
  if (event.commandName === 'find') {
    // The driver sends the sort as a Map (key order matters).
    const raw = command.sort as Map<string, number> | Record<string, number> | undefined;
    const sort = raw instanceof Map ? [...raw.entries()] : Object.entries(raw ?? {});
    return { collection: String(command.find), filter: (command.filter ?? {}) as Document, sort };
  }
  if (event.commandName === 'aggregate') {
    const match = ((command.pipeline ?? []) as Document[]).find((stage) => '$match' in stage);
    return { collection: String(command.aggregate), filter: (match?.$match ?? {}) as Document, sort: [] };
  }
  if (event.commandName === 'count') return { collection: String(command.count), filter: (command.query ?? {}) as Document, sort: [] };
  return undefined;
}

beforeAll(() => {
  ({ api, adminToken: token } = env);
});

describe('every list query is served by a declared index on MongoDB', () => {
  it('the list endpoints with each filter', async () => {
    const project = await createProject(api, token);
    const projectId = project.id as string;
    expect((await api.post(`/v1/projects/${projectId}/deployments`, { token, body: { environment: 'production', branch: 'main' } })).status).toBe(201);
    const hook = await api.post('/v1/webhooks', { token, body: { url: 'http://127.0.0.1:9/list-indexes', events: ['*'] } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);

    const paths = [
      '/v1/projects',
      '/v1/projects?page=2&per_page=5',
      `/v1/projects/${projectId}/deployments`,
      `/v1/projects/${projectId}/deployments?environment=production`,
      `/v1/projects/${projectId}/deployments?status=queued`,
      `/v1/projects/${projectId}/deployments?branch=main`,
      `/v1/projects/${projectId}/deployments?environment=production&status=queued&branch=main`,
      `/v1/projects/${projectId}/api_keys`,
      `/v1/projects/${projectId}/api_keys?status=active`,
      `/v1/projects/${projectId}/configurations`,
      `/v1/projects/${projectId}/configurations?environment=production`,
      '/v1/events',
      '/v1/events?type=deployment.created',
      `/v1/events?project_id=${projectId}`,
      '/v1/oauth_clients',
      '/v1/users',
      '/v1/webhooks',
      `/v1/webhooks/${hook.body.id as string}/deliveries`,
    ];

    const client = env.server.running.container.database.client;
    const seen: ListQuery[] = [];
    const record = (event: CommandStartedEvent) => {
      const query = listQuery(event);
      if (query) seen.push(query);
    };
    client.on('commandStarted', record);
    try {
      for (const path of paths) {
        const res = await api.get(path, { token });
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      }
    } finally {
      client.off('commandStarted', record);
    }

    // Lookups by `_id` (the project, the caller) are served by the `_id` index; lists are what is checked.
    const lists = seen.filter((q) => !(Object.keys(q.filter).length === 1 && typeof q.filter._id === 'string' && q.sort.length === 0));
    expect(new Set(lists.map((q) => q.collection))).toEqual(new Set(['projects', 'deployments', 'api_keys', 'configurations', 'events', 'oauth_clients', 'users', 'webhooks', 'webhook_deliveries']));

    const db = env.server.running.container.database.db;
    const indexes = new Map<string, IndexDescription[]>();
    const unserved: string[] = [];
    for (const query of lists) {
      if (!indexes.has(query.collection)) indexes.set(query.collection, await db.collection(query.collection).indexes());
      const candidates = indexes.get(query.collection)!.map((ix) => ix.key as Record<string, number>);
      if (!candidates.some((key) => servedBy(query, key))) unserved.push(`${query.collection} ${JSON.stringify(query.filter)} sort ${JSON.stringify(query.sort)}`);
    }
    if (process.env.SHOW_LIST_QUERIES) for (const query of lists) console.log(JSON.stringify(query));
    expect(unserved).toEqual([]);
  });

  it('the matching rule itself: prefix of equality fields, then the sort in order or reversed', () => {
    const q = (filter: Document, sort: [string, number][] = []): ListQuery => ({ collection: 'c', filter, sort });
    expect(servedBy(q({ account_id: 'a' }, [['_id', -1]]), { account_id: 1, _id: -1 })).toBe(true);
    expect(servedBy(q({ account_id: 'a' }, [['_id', 1]]), { account_id: 1, _id: -1 })).toBe(true);
    expect(servedBy(q({ account_id: 'a', status: 's' }, [['_id', -1]]), { account_id: 1, _id: -1 })).toBe(true);
    expect(servedBy(q({ account_id: 'a' }, [['_id', -1]]), { account_id: 1 })).toBe(false);
    expect(servedBy(q({ account_id: 'a' }, [['created_at', 1], ['_id', 1]]), { account_id: 1, created_at: 1, _id: -1 })).toBe(false);
    expect(servedBy(q({ status: 's' }), { account_id: 1, _id: -1 })).toBe(false);
    expect(servedBy(q({}, [['_id', 1]]), { _id: 1 })).toBe(true);
  });
});
