import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import {
  createConfiguration,
  deleteConfiguration,
  getConfiguration,
  listConfigurations,
  presentConfiguration,
  reencryptConfigurations,
  updateConfiguration,
  type ConfigurationDeps,
} from '../../src/services/configurations.ts';
import type { ServiceContext } from '../../src/services/events.ts';
import { createSecretBox, type DataKeys } from '../../src/keys/secretBox.ts';
import { rejection, useTestDatabase } from '../support/fixtures.ts';

const t = useTestDatabase();
let deps: ConfigurationDeps;
const keys: DataKeys = { current: 'dk_one', keys: { dk_one: randomBytes(32).toString('base64url') } };
const ctx: ServiceContext = { accountId: newId('acct'), actor: { type: 'user', id: newId('usr') } };
const project = newId('proj');
const page = { page: 1, per_page: 20 };
/** A record whose ciphertext was copied from another one: it can no longer be opened. */
let tamperedId = '';

beforeAll(() => {
  deps = { ...t.repos, secretBox: createSecretBox(keys) };
});

describe('configurations', () => {
  it('stores plain values as given and secret values only encrypted', async () => {
    const plain = await createConfiguration(deps, ctx, project, { environment: 'production', key: 'LOG_LEVEL', value: 'info' });
    const secretValue = `sk_live_${randomBytes(12).toString('hex')}`;
    const secret = await createConfiguration(deps, ctx, project, { environment: 'production', key: 'STRIPE_KEY', value: secretValue, secret: true });

    const raw = await t.repos.configurations.collection.find({}).toArray();
    expect(JSON.stringify(raw)).not.toContain(secretValue);
    const stored = raw.find((d) => d._id === secret._id)!;
    expect(stored.value).toBeNull();
    expect(stored.value_encrypted).toMatchObject({ alg: 'A256GCM', kid: 'dk_one' });
    expect(raw.find((d) => d._id === plain._id)!.value).toBe('info');

    expect(presentConfiguration(secret).value).toBeNull();
    expect(presentConfiguration(secret, { reveal: true, secretBox: deps.secretBox }).value).toBe(secretValue);
    expect(presentConfiguration(plain)).toMatchObject({ key: 'LOG_LEVEL', value: 'info', secret: false, environment: 'production', project_id: project });
    expect(Object.keys(presentConfiguration(secret))).not.toContain('value_encrypted');
  });

  it('refuses a ciphertext copied onto another record', async () => {
    const a = await createConfiguration(deps, ctx, project, { environment: 'staging', key: 'A_SECRET', value: 'alpha', secret: true });
    const b = await createConfiguration(deps, ctx, project, { environment: 'staging', key: 'B_SECRET', value: 'bravo', secret: true });
    await t.db.collection('configurations').updateOne({ _id: b._id as never }, { $set: { value_encrypted: a.value_encrypted } });
    tamperedId = b._id;
    const moved = await getConfiguration(deps, ctx.accountId, project, b._id);
    expect(() => presentConfiguration(moved, { reveal: true, secretBox: deps.secretBox })).toThrow();
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
      const err = await rejection(createConfiguration(deps, ctx, project, input as never));
      expect(err.code, JSON.stringify(input).slice(0, 80)).toBe('validation_failed');
      expect(err.details!.length).toBeGreaterThan(0);
    }
    // Limits are inclusive: 256-character key, 63-character environment, exactly 32 KiB.
    await createConfiguration(deps, ctx, project, { environment: 'e'.repeat(63), key: `K${'x'.repeat(255)}`, value: 'v'.repeat(32 * 1024) });

    await createConfiguration(deps, ctx, project, { environment: 'dev', key: 'PORT', value: '3000' });
    const dup = await rejection(createConfiguration(deps, ctx, project, { environment: 'dev', key: 'PORT', value: '4000' }));
    expect(dup.status).toBe(409);
    expect(dup.code).toBe('conflict');
    // The same key in another environment or project is a different variable.
    await createConfiguration(deps, ctx, project, { environment: 'prod', key: 'PORT', value: '80' });
    await createConfiguration(deps, ctx, newId('proj'), { environment: 'dev', key: 'PORT', value: '3000' });
  });

  it('updates values, makes values secret, and never makes a secret non-secret', async () => {
    const cfg = await createConfiguration(deps, ctx, project, { environment: 'qa', key: 'API_TOKEN', value: 'plain-for-now' });
    const updated = await updateConfiguration(deps, ctx, project, cfg._id, { value: 'changed' });
    expect(updated.value).toBe('changed');
    expect(updated.updated_at.getTime()).toBeGreaterThanOrEqual(cfg.updated_at.getTime());

    const secret = await updateConfiguration(deps, ctx, project, cfg._id, { secret: true });
    expect(secret.secret).toBe(true);
    expect(secret.value).toBeNull();
    expect(presentConfiguration(secret, { reveal: true, secretBox: deps.secretBox }).value).toBe('changed');
    const raw = await t.db.collection('configurations').findOne({ _id: cfg._id as never });
    expect(JSON.stringify(raw)).not.toContain('changed');

    const refused = await rejection(updateConfiguration(deps, ctx, project, cfg._id, { secret: false }));
    expect(refused.status).toBe(422);
    expect(refused.details).toEqual([expect.objectContaining({ field: 'secret' })]);

    const newValue = await updateConfiguration(deps, ctx, project, cfg._id, { value: 'rotated-token' });
    expect(newValue.secret).toBe(true);
    expect(newValue.value).toBeNull();
    expect(presentConfiguration(newValue, { reveal: true, secretBox: deps.secretBox }).value).toBe('rotated-token');

    const fixed = await rejection(updateConfiguration(deps, ctx, project, cfg._id, { key: 'OTHER' } as never));
    expect(fixed.code).toBe('validation_failed');
  });

  it('lists by environment with pagination, confined to account and project', async () => {
    const p = newId('proj');
    for (const key of ['C', 'A', 'B']) await createConfiguration(deps, ctx, p, { environment: 'production', key, value: key });
    await createConfiguration(deps, ctx, p, { environment: 'staging', key: 'A', value: 'a' });

    const all = await listConfigurations(deps, ctx.accountId, p, {}, page);
    expect(all.total).toBe(4);
    const prod = await listConfigurations(deps, ctx.accountId, p, { environment: 'production' }, { page: 1, per_page: 2 });
    expect(prod.total).toBe(3);
    expect(prod.items.map((c) => c.key)).toEqual(['A', 'B']);
    const second = await listConfigurations(deps, ctx.accountId, p, { environment: 'production' }, { page: 2, per_page: 2 });
    expect(second.items.map((c) => c.key)).toEqual(['C']);
    const past = await listConfigurations(deps, ctx.accountId, p, { environment: 'production' }, { page: 9, per_page: 2 });
    expect(past).toEqual({ items: [], total: 3 });

    const other = newId('acct');
    expect((await listConfigurations(deps, other, p, {}, page)).total).toBe(0);
    const id = all.items[0]!._id;
    expect((await rejection(getConfiguration(deps, other, p, id))).code).toBe('not_found');
    expect((await rejection(getConfiguration(deps, ctx.accountId, newId('proj'), id))).code).toBe('not_found');
    expect((await rejection(deleteConfiguration(deps, { ...ctx, accountId: other }, p, id))).code).toBe('not_found');
    expect((await rejection(listConfigurations(deps, ctx.accountId, p, { environment: { $ne: 'x' } } as never, page))).code).toBe('validation_failed');
    expect((await rejection(listConfigurations(deps, ctx.accountId, p, {}, { page: 1, per_page: 101 }))).code).toBe('invalid_request');

    await deleteConfiguration(deps, ctx, p, id);
    expect((await rejection(getConfiguration(deps, ctx.accountId, p, id))).status).toBe(404);
  });

  it('records events without values', async () => {
    const c = { ...ctx, accountId: newId('acct') };
    const cfg = await createConfiguration(deps, c, project, { environment: 'production', key: 'DB_PASSWORD', value: 'pw-in-event?', secret: true });
    await updateConfiguration(deps, c, project, cfg._id, { value: 'pw-updated?' });
    await deleteConfiguration(deps, c, project, cfg._id);
    const events = await t.repos.events.page(c.accountId, {}, page);
    expect(events.items.map((e) => e.type)).toEqual(['configuration.deleted', 'configuration.updated', 'configuration.created']);
    expect(events.items[1]!.data).toMatchObject({ key: 'DB_PASSWORD', changed: ['value'], secret: true });
    expect(events.items.every((e) => e.project_id === project && e.actor.id === ctx.actor.id)).toBe(true);
    expect(JSON.stringify(events.items)).not.toMatch(/pw-/);
  });

  it('re-encrypts every secret under the current key after a data-key rotation', async () => {
    const p = newId('proj');
    const values = ['one', 'two', 'three'];
    const docs = [];
    for (const [i, v] of values.entries()) docs.push(await createConfiguration(deps, ctx, p, { environment: 'production', key: `K${i}`, value: v, secret: true }));
    await createConfiguration(deps, ctx, p, { environment: 'production', key: 'PLAIN', value: 'p' });

    const rotated: DataKeys = { current: 'dk_two', keys: { ...keys.keys, dk_two: randomBytes(32).toString('base64url') } };
    const box = createSecretBox(rotated);
    const result = await reencryptConfigurations({ configurations: t.repos.configurations, locks: t.repos.locks, secretBox: box });
    expect(result.current_key).toBe('dk_two');
    expect(result.reencrypted).toBeGreaterThanOrEqual(3);
    expect(result.skipped).toBe(0);
    // The tampered record is reported and left alone; it does not stop the others.
    expect(result.failed).toEqual([{ id: tamperedId, kid: 'dk_one', error: 'cannot be decrypted' }]);
    expect(result.by_key).toEqual({ dk_two: expect.any(Number), dk_one: 1 });

    // Readable with the new key alone: the old one can be removed.
    const onlyNew = createSecretBox({ current: 'dk_two', keys: { dk_two: rotated.keys.dk_two! } });
    for (const [i, doc] of docs.entries()) {
      const fresh = await getConfiguration(deps, ctx.accountId, p, doc._id);
      expect(fresh.value_encrypted!.kid).toBe('dk_two');
      expect(presentConfiguration(fresh, { reveal: true, secretBox: onlyNew }).value).toBe(values[i]);
    }
    const again = await reencryptConfigurations({ configurations: t.repos.configurations, locks: t.repos.locks, secretBox: box });
    expect(again.reencrypted).toBe(0);
  });
});
