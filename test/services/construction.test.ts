import { describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/domain/principal.ts';
import { newId } from '../../src/lib/ids.ts';
import { Service } from '../../src/services/service.ts';
import { useTestDatabase } from '../support/fixtures.ts';
import { buildServices } from '../support/services.ts';

const t = useTestDatabase();

describe('services built one way', () => {
  it('every service createServices builds is a Service taking one deps object', () => {
    const services = buildServices(t.repos);
    const names = Object.keys(services) as (keyof typeof services)[];
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const name of names) expect(services[name], name).toBeInstanceOf(Service);
  });

  it('records through the one injected event log: a change made by one service reaches the endpoints another registered', async () => {
    const services = buildServices(t.repos);
    const operator = systemPrincipal(newId('account'));
    const { webhook } = await services.webhooks.create(operator, { url: 'http://127.0.0.1:9/hook', events: ['project.created', 'api_key.created'] });
    const project = await services.projects.create(operator, { name: 'one event log' });
    const { apiKey } = await services.apiKeys.create(operator, project._id, { name: 'reader', scopes: ['read'] });

    const events = await services.events.list(operator, {}, { page: 1, per_page: 10 });
    expect(events.items.map((e) => [e.type, e.project_id, e.actor])).toEqual([
      ['api_key.created', project._id, { type: 'system', id: 'cli' }],
      ['project.created', project._id, { type: 'system', id: 'cli' }],
      ['webhook.created', null, { type: 'system', id: 'cli' }],
    ]);
    expect(events.items[0]!.data).toMatchObject({ api_key_id: apiKey._id, name: 'reader', scopes: ['read'] });
    const queued = await t.repos.webhookDeliveries.collection.find({ webhook_id: webhook._id }).toArray();
    expect(queued.map((d) => d.event_type).sort()).toEqual(['api_key.created', 'project.created']);
    expect(queued.map((d) => d.event_id).sort()).toEqual(events.items.slice(0, 2).map((e) => e._id).sort());
  });
});
