import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Principal } from '../../src/domain/principal.ts';
import { newId } from '../../src/lib/ids.ts';
import { presentConfiguration } from '../../src/presenters/configurations.ts';
import { CreateConfigurationBody, ListConfigurationsQuery, UpdateConfigurationBody } from '../../src/schemas/configurations.ts';
import { parseInput } from '../../src/schemas/parse.ts';
import type { ConfigurationService } from '../../src/services/configurations.ts';
import type { ProjectService } from '../../src/services/projects.ts';
import { createSecretBox, type DataKeys, type SecretBox } from '../../src/keys/secretBox.ts';
import { rejection, useTestDatabase } from '../support/fixtures.ts';
import { buildServices } from '../support/services.ts';

const t = useTestDatabase();
let projects: ProjectService;
let configurations: ConfigurationService;
const keys: DataKeys = { current: 'dk_one', keys: { dk_one: randomBytes(32).toString('base64url') } };
const principal: Principal = { kind: 'user', id: newId('user'), accountId: newId('account'), scopes: new Set(['read', 'write', 'admin']), role: 'owner', credential: 'access_token' };
let project: string;
const page = { page: 1, per_page: 20 };
/** A record whose ciphertext was copied from another one: it can no longer be opened. */
let tamperedId = '';

/** A project of `who`'s account. */
const newProject = async (who: Principal = principal) => (await projects.create(who, { name: `configurations ${randomBytes(6).toString('hex')}` }))._id;
/** The service as it runs with another secret box (after a data-key rotation). */
const withBox = (secretBox: SecretBox) => buildServices(t.repos, { secretBox }).configurations;
/** Raw input checked against the route's schema (as /v1, the dashboard and the CLI do), then created. */
const create = async (projectId: string, input: z.input<typeof CreateConfigurationBody>, who: Principal = principal) =>
  await configurations.create(who, projectId, parseInput(CreateConfigurationBody, input));
const update = async (projectId: string, id: string, input: z.input<typeof UpdateConfigurationBody>, who: Principal = principal) =>
  await configurations.update(who, projectId, id, parseInput(UpdateConfigurationBody, input));
const revealed = async (service: ConfigurationService, projectId: string, id: string) => presentConfiguration(await service.get(principal, projectId, id, { reveal: true })).value;

beforeAll(async () => {
  ({ projects, configurations } = buildServices(t.repos, { secretBox: createSecretBox(keys) }));
  project = await newProject();
});

describe('configurations', () => {
  it('stores plain values as given and secret values only encrypted', async () => {
    const plain = await create(project, { environment: 'production', key: 'LOG_LEVEL', value: 'info' });
    const secretValue = `sk_live_${randomBytes(12).toString('hex')}`;
    const secret = await create(project, { environment: 'production', key: 'STRIPE_KEY', value: secretValue, secret: true });

    const raw = await t.repos.configurations.collection.find({}).toArray();
    expect(JSON.stringify(raw)).not.toContain(secretValue);
    const stored = raw.find((d) => d._id === secret._id)!;
    expect(stored.value).toBeNull();
    expect(stored.value_encrypted).toMatchObject({ alg: 'A256GCM', kid: 'dk_one' });
    expect(raw.find((d) => d._id === plain._id)!.value).toBe('info');

    expect(presentConfiguration(secret).value).toBeNull();
    expect(await revealed(configurations, project, secret._id)).toBe(secretValue);
    expect(presentConfiguration(plain)).toMatchObject({ key: 'LOG_LEVEL', value: 'info', secret: false, environment: 'production', project_id: project });
    expect(Object.keys(presentConfiguration(secret))).not.toContain('value_encrypted');
  });

  it('refuses a ciphertext copied onto another record', async () => {
    const a = await create(project, { environment: 'staging', key: 'A_SECRET', value: 'alpha', secret: true });
    const b = await create(project, { environment: 'staging', key: 'B_SECRET', value: 'bravo', secret: true });
    await t.db.collection('configurations').updateOne({ _id: b._id as never }, { $set: { value_encrypted: a.value_encrypted } });
    tamperedId = b._id;
    await expect(configurations.get(principal, project, b._id, { reveal: true })).rejects.toThrow();
  });

  it('validates keys, environments and value size, and refuses duplicates with 409', async () => {
    const bad = [
      { environment: 'production', key: '1ABC', value: 'x' },
      { environment: 'production', key: 'WITH-DASH', value: 'x' },
      { environment: 'production', key: 'A'.repeat(257), value: 'x' },
      { environment: 'Production', key: 'OK', value: 'x' },
      { environment: '-prod', key: 'OK', value: 'x' },
      { environment: 'production', key: 'OK', value: 'é'.repeat(16 * 1024 + 1) },
      { environment: 'production', key: 'OK', value: 'x', extra: true },
      { environment: 'production', key: { $gt: '' }, value: 'x' },
    ];
    for (const input of bad) {
      const err = await rejection(create(project, input as never));
      expect(err.code, JSON.stringify(input).slice(0, 80)).toBe('validation_failed');
      expect(err.details!.length).toBeGreaterThan(0);
    }
    // Limits are inclusive: 256-character key, 63-character environment, exactly 32 KiB.
    await create(project, { environment: 'e'.repeat(63), key: `K${'x'.repeat(255)}`, value: 'v'.repeat(32 * 1024) });

    await create(project, { environment: 'dev', key: 'PORT', value: '3000' });
    const dup = await rejection(create(project, { environment: 'dev', key: 'PORT', value: '4000' }));
    expect(dup.status).toBe(409);
    expect(dup.code).toBe('conflict');
    // The same key in another environment or project is a different variable.
    await create(project, { environment: 'prod', key: 'PORT', value: '80' });
    await create(await newProject(), { environment: 'dev', key: 'PORT', value: '3000' });
  });

  it('updates values, makes values secret, and never makes a secret non-secret', async () => {
    const cfg = await create(project, { environment: 'qa', key: 'API_TOKEN', value: 'plain-for-now' });
    const updated = await update(project, cfg._id, { value: 'changed' });
    expect(updated.value).toBe('changed');
    expect(updated.updated_at.getTime()).toBeGreaterThanOrEqual(cfg.updated_at.getTime());

    const secret = await update(project, cfg._id, { secret: true });
    expect(secret.secret).toBe(true);
    expect(secret.value).toBeNull();
    expect(await revealed(configurations, project, secret._id)).toBe('changed');
    const raw = await t.db.collection('configurations').findOne({ _id: cfg._id as never });
    expect(JSON.stringify(raw)).not.toContain('changed');

    const refused = await rejection(update(project, cfg._id, { secret: false }));
    expect(refused.status).toBe(422);
    expect(refused.details).toEqual([expect.objectContaining({ field: 'secret' })]);

    const newValue = await update(project, cfg._id, { value: 'rotated-token' });
    expect(newValue.secret).toBe(true);
    expect(newValue.value).toBeNull();
    expect(await revealed(configurations, project, newValue._id)).toBe('rotated-token');

    const fixed = await rejection(update(project, cfg._id, { key: 'OTHER' } as never));
    expect(fixed.code).toBe('validation_failed');
  });

  it('lists by environment with pagination, confined to account and project', async () => {
    const p = await newProject();
    for (const key of ['C', 'A', 'B']) await create(p, { environment: 'production', key, value: key });
    await create(p, { environment: 'staging', key: 'A', value: 'a' });

    const all = await configurations.list(principal, p, {}, page);
    expect(all.total).toBe(4);
    const prod = await configurations.list(principal, p, { environment: 'production' }, { page: 1, per_page: 2 });
    expect(prod.total).toBe(3);
    expect(prod.items.map((c) => c.key)).toEqual(['A', 'B']);
    const second = await configurations.list(principal, p, { environment: 'production' }, { page: 2, per_page: 2 });
    expect(second.items.map((c) => c.key)).toEqual(['C']);
    const past = await configurations.list(principal, p, { environment: 'production' }, { page: 9, per_page: 2 });
    expect(past).toEqual({ items: [], total: 3 });

    // Another account sees neither the project nor its variables.
    const other: Principal = { ...principal, accountId: newId('account') };
    expect((await rejection(configurations.list(other, p, {}, page))).code).toBe('not_found');
    const id = all.items[0]!._id;
    expect((await rejection(configurations.get(other, p, id))).code).toBe('not_found');
    expect((await rejection(configurations.get(principal, await newProject(), id))).code).toBe('not_found');
    expect((await rejection(configurations.delete(other, p, id))).code).toBe('not_found');
    // The filter is checked by the route's schema: an operator object is no environment.
    expect(ListConfigurationsQuery.safeParse({ environment: { $ne: 'x' } }).success).toBe(false);
    expect((await rejection(configurations.list(principal, p, {}, { page: 1, per_page: 101 }))).code).toBe('invalid_request');

    await configurations.delete(principal, p, id);
    expect((await rejection(configurations.get(principal, p, id))).status).toBe(404);
  });

  it('records events without values', async () => {
    const c: Principal = { ...principal, accountId: newId('account') };
    const audited = await newProject(c);
    const cfg = await create(audited, { environment: 'production', key: 'DB_PASSWORD', value: 'pw-in-event?', secret: true }, c);
    await update(audited, cfg._id, { value: 'pw-updated?' }, c);
    await configurations.delete(c, audited, cfg._id);
    const events = (await t.repos.events.page(c.accountId, {}, page)).items.filter((e) => e.type.startsWith('configuration.'));
    expect(events.map((e) => e.type)).toEqual(['configuration.deleted', 'configuration.updated', 'configuration.created']);
    expect(events[1]!.data).toMatchObject({ key: 'DB_PASSWORD', changed: ['value'], secret: true });
    expect(events.every((e) => e.project_id === audited && e.actor.id === principal.id)).toBe(true);
    expect(JSON.stringify(events)).not.toMatch(/pw-/);
  });

  it('re-encrypts every secret under the current key after a data-key rotation', async () => {
    const p = await newProject();
    const values = ['one', 'two', 'three'];
    const docs = [];
    for (const [i, v] of values.entries()) docs.push(await create(p, { environment: 'production', key: `K${i}`, value: v, secret: true }));
    await create(p, { environment: 'production', key: 'PLAIN', value: 'p' });

    const rotated: DataKeys = { current: 'dk_two', keys: { ...keys.keys, dk_two: randomBytes(32).toString('base64url') } };
    const afterRotation = withBox(createSecretBox(rotated));
    const result = await afterRotation.reencryptSecrets();
    expect(result.current_key).toBe('dk_two');
    expect(result.reencrypted).toBeGreaterThanOrEqual(3);
    expect(result.skipped).toBe(0);
    // The tampered record is reported and left alone; it does not stop the others.
    expect(result.failed).toEqual([{ id: tamperedId, kid: 'dk_one', error: 'cannot be decrypted' }]);
    expect(result.by_key).toEqual({ dk_two: expect.any(Number), dk_one: 1 });

    // Readable with the new key alone: the old one can be removed.
    const onlyNew = withBox(createSecretBox({ current: 'dk_two', keys: { dk_two: rotated.keys.dk_two! } }));
    for (const [i, doc] of docs.entries()) {
      const fresh = await configurations.get(principal, p, doc._id);
      expect(fresh.value_encrypted!.kid).toBe('dk_two');
      expect(await revealed(onlyNew, p, doc._id)).toBe(values[i]);
    }
    const again = await afterRotation.reencryptSecrets();
    expect(again.reencrypted).toBe(0);
  });
});
