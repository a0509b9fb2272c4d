import { createChanges } from '../../src/lib/changes.ts';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Context } from 'koa';
import { createApiKeyAuthenticator } from '../../src/auth/apiKeyAuthenticator.ts';
import type { Authenticator } from '../../src/auth/authenticators.ts';
import { AppError } from '../../src/errors.ts';
import { API_KEY_LENGTH, apiKeyChecksum, generateApiKey, hashApiKey, looksLikeApiKey } from '../../src/lib/apiKeyFormat.ts';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Principal } from '../../src/domain/principal.ts';
import { newId } from '../../src/lib/ids.ts';
import { presentApiKey, presentIssuedApiKey } from '../../src/presenters/apiKeys.ts';
import { CreateApiKeyBody, RotateApiKeyBody } from '../../src/schemas/apiKeys.ts';
import { parseInput } from '../../src/schemas/parse.ts';
import type { ApiKeyService } from '../../src/services/apiKeys.ts';
import type { ProjectService } from '../../src/services/projects.ts';
import { dumpDatabase } from '../support/database.ts';
import { rejection, useTestDatabase } from '../support/fixtures.ts';
import { buildServices } from '../support/services.ts';

const t = useTestDatabase();
let projects: ProjectService;
let apiKeys: ApiKeyService;
const principal: Principal = { kind: 'user', id: newId('user'), accountId: newId('account'), scopes: new Set(['read', 'write', 'admin']), role: 'owner', credential: 'access_token' };
const actor = { type: 'user', id: principal.id };
let project: string;
/** This test process's change emitter: the services emit on it, the authenticators of this process listen. */
const changes = createChanges();

/**
 * An authenticator as an instance would have one; `clock.offset` moves its time forward. `elsewhere`:
 * another process's, which the change notifications of this one never reach.
 */
function instance(clock = { offset: 0 }, { elsewhere = false } = {}): Authenticator {
  return createApiKeyAuthenticator(t.repos, { now: () => Date.now() + clock.offset, ...(elsewhere ? {} : { changes }) });
}

/** The principal `auth` makes of `token`, or null where it answers 401 `invalid_token`. */
async function principalOf(auth: Authenticator, token: string): Promise<Principal | null> {
  try {
    return await auth.authenticate(token, {} as Context, 'bearer');
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_token') return null;
    throw err;
  }
}

/** Waits for the `last_used_at` writes a spy on `apiKeyUsage.touch` has seen started. */
const settled = async (writes: { mock: { results: { value: unknown }[] } }) => await Promise.all(writes.mock.results.map((r) => r.value));

/** A project of `who`'s account. */
const newProject = async (who: Principal = principal) => (await projects.create(who, { name: `keys ${randomBytes(6).toString('hex')}` }))._id;
/** Raw input checked against the route's schema (as /v1, the dashboard and the CLI do), then the service. */
const create = async (projectId: string, input: z.input<typeof CreateApiKeyBody>, who: Principal = principal) =>
  await apiKeys.create(who, projectId, parseInput(CreateApiKeyBody, input));
const rotate = async (projectId: string, id: string, input: z.input<typeof RotateApiKeyBody> = {}, who: Principal = principal) =>
  await apiKeys.rotate(who, projectId, id, parseInput(RotateApiKeyBody, input));

beforeAll(async () => {
  ({ projects, apiKeys } = buildServices(t.repos, { changes }));
  project = await newProject();
});

describe('API key format', () => {
  it('is slw_ + 32 base62 + a 6-character base62 CRC32 of the 32', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^slw_[0-9A-Za-z]{38}$/);
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(key.slice(36)).toBe(apiKeyChecksum(key.slice(4, 36)));
      expect(looksLikeApiKey(key)).toBe(true);
      seen.add(key);
    }
    expect(seen.size).toBe(200);
    // The CRC-32 check value: crc32("123456789") = 0xCBF43926 = 3421780262 = base62 "3jZRME".
    expect(apiKeyChecksum('123456789')).toBe('3jZRME');
    // Zero-padded to six digits.
    expect(apiKeyChecksum('')).toBe('000000');
  });

  it('refuses wrong prefix, length, alphabet or checksum', () => {
    const key = generateApiKey();
    const swap = (i: number) => key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(looksLikeApiKey(swap(10))).toBe(false); // body changed: checksum no longer matches
    expect(looksLikeApiKey(swap(40))).toBe(false); // checksum changed
    expect(looksLikeApiKey(`slx_${key.slice(4)}`)).toBe(false);
    expect(looksLikeApiKey(key.slice(0, -1))).toBe(false);
    expect(looksLikeApiKey(`${key}0`)).toBe(false);
    expect(looksLikeApiKey(`${key.slice(0, 10)}-${key.slice(11)}`)).toBe(false);
    expect(looksLikeApiKey(undefined)).toBe(false);
    expect(looksLikeApiKey(`slws_${key.slice(5)}`)).toBe(false);
  });
});

describe('API keys', () => {
  it('shows the key once and stores only its SHA-256', async () => {
    const { apiKey, key } = await create(project, { name: 'CI deploys', scopes: ['write', 'read', 'write'] });
    expect(looksLikeApiKey(key)).toBe(true);
    expect(apiKey.scopes).toEqual(['read', 'write']);
    expect(apiKey.prefix).toBe(key.slice(0, 8));
    expect(apiKey.last_four).toBe(key.slice(-4));

    const dump = await dumpDatabase(t.db);
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(key.slice(4, 36));
    expect(dump).toContain(hashApiKey(key));

    const presented = presentApiKey(await apiKeys.get(principal, project, apiKey._id));
    expect(Object.keys(presented).sort()).toEqual(
      ['created_at', 'created_by', 'expires_at', 'id', 'last_four', 'last_used_at', 'name', 'prefix', 'project_id', 'rotated_at', 'scopes', 'status', 'updated_at'].sort(),
    );
    expect(JSON.stringify(presented)).not.toContain(key);
    expect(JSON.stringify(presented)).not.toContain(hashApiKey(key));
    expect(presented).toMatchObject({ status: 'active', created_by: actor, project_id: project, expires_at: null, last_used_at: null });
    expect(presentIssuedApiKey({ apiKey, key }).key).toBe(key);
  });

  it('validates input', async () => {
    for (const input of [
      { name: '', scopes: ['read'] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['owner'] },
      { name: 'x', scopes: ['read'], expires_at: '2001-01-01T00:00:00Z' },
      { name: 'x', scopes: ['read'], expires_at: 'tomorrow' },
      { name: 'x', scopes: ['read'], project_id: 'proj_other' },
    ]) {
      expect((await rejection(create(project, input as never))).code).toBe('validation_failed');
    }
    for (const grace of [-1, 604_801, 1.5, '10']) {
      const { apiKey } = await create(project, { name: 'g', scopes: ['read'] });
      expect((await rejection(rotate(project, apiKey._id, { grace_period_seconds: grace as never }))).code).toBe('validation_failed');
    }
  });

  it('authenticates to a project principal with expanded scopes, from cache after the first lookup', async () => {
    const { apiKey, key } = await create(project, { name: 'deployer', scopes: ['write'] });
    const auth = instance();
    const lookups = vi.spyOn(t.repos.apiKeySecrets, 'findByHash');
    try {
      const authenticated = await principalOf(auth, key);
      expect(authenticated).toEqual({
        kind: 'api_key',
        id: apiKey._id,
        accountId: principal.accountId,
        projectId: project,
        scopes: new Set(['read', 'write']),
        credential: 'api_key',
        credentialId: apiKey._id,
      });
      for (let i = 0; i < 20; i++) expect(await principalOf(auth, key)).not.toBeNull();
      expect(lookups).toHaveBeenCalledTimes(1);

      // Malformed tokens never reach the database.
      const forged = `slw_${'A'.repeat(32)}000000`;
      expect(await principalOf(auth, forged)).toBeNull();
      expect(await principalOf(auth, 'eyJhbGciOi.x.y')).toBeNull();
      expect(lookups).toHaveBeenCalledTimes(1);
      // Well-formed but unknown: one lookup, then remembered as unknown for a few seconds.
      const unknown = generateApiKey();
      expect(await principalOf(auth, unknown)).toBeNull();
      expect(await principalOf(auth, unknown)).toBeNull();
      expect(lookups).toHaveBeenCalledTimes(2);
    } finally {
      lookups.mockRestore();
    }
  });

  it('rotation keeps the old secret for the grace period only, and leaves other keys alone', async () => {
    const a = await create(project, { name: 'A', scopes: ['read'] });
    const b = await create(project, { name: 'B', scopes: ['read'] });
    const clock = { offset: 0 };
    const auth = instance(clock);
    expect(await principalOf(auth, a.key)).not.toBeNull();

    // 3 s of grace: the checks below run inside it, and then the instances' clock moves past it.
    const rotated = await rotate(project, a.apiKey._id, { grace_period_seconds: 3 });
    expect(rotated.apiKey._id).toBe(a.apiKey._id);
    expect(rotated.key).not.toBe(a.key);
    expect(rotated.apiKey.rotated_at).toBeInstanceOf(Date);
    expect(rotated.apiKey.prefix).toBe(rotated.key.slice(0, 8));
    expect(await dumpDatabase(t.db)).not.toContain(rotated.key);

    const other = instance(clock);
    for (const authn of [auth, other]) {
      expect((await principalOf(authn, a.key))?.id).toBe(a.apiKey._id);
      expect((await principalOf(authn, rotated.key))?.id).toBe(a.apiKey._id);
      expect((await principalOf(authn, b.key))?.id).toBe(b.apiKey._id);
    }
    clock.offset = Math.max(0, rotated.apiKey.rotated_at!.getTime() + 3_000 + 1 - Date.now());
    // The grace end is checked on every use, cached or not.
    for (const authn of [auth, other, instance(clock)]) {
      expect(await principalOf(authn, a.key)).toBeNull();
      expect(await principalOf(authn, rotated.key)).not.toBeNull();
      expect(await principalOf(authn, b.key)).not.toBeNull();
    }
    expect(await t.repos.apiKeySecrets.collection.countDocuments({ key_id: b.apiKey._id })).toBe(1);

    // Grace 0: the previous secret stops at once, even where it was cached.
    const again = await rotate(project, a.apiKey._id);
    expect(await principalOf(instance(), rotated.key)).toBeNull();
    expect(await principalOf(instance(), again.key)).not.toBeNull();
    expect(await t.repos.apiKeySecrets.collection.countDocuments({ key_id: a.apiKey._id })).toBe(1);
  });

  it('a revoked key is refused at once here and within the cache lifetime (≤ 30 s) on other instances', async () => {
    const { apiKey, key } = await create(project, { name: 'to revoke', scopes: ['admin'] });
    const clock = { offset: 0 };
    const elsewhere = instance(clock, { elsewhere: true });
    const here = instance();
    expect(await principalOf(elsewhere, key)).not.toBeNull();
    expect(await principalOf(here, key)).not.toBeNull();

    // Another process: the change notification does not reach it.
    const revoked = await apiKeys.revoke(principal, project, apiKey._id);
    expect(revoked.status).toBe('revoked');
    expect(await principalOf(here, key)).toBeNull();
    // Still cached on the other instance…
    expect(await principalOf(elsewhere, key)).not.toBeNull();
    // …until its entry is 30 s old.
    clock.offset = 30_001;
    expect(await principalOf(elsewhere, key)).toBeNull();

    expect(await t.repos.apiKeySecrets.collection.countDocuments({ key_id: apiKey._id })).toBe(0);
    expect((await rejection(rotate(project, apiKey._id))).status).toBe(409);
    // Revoking again is harmless and records nothing new.
    expect((await apiKeys.revoke(principal, project, apiKey._id)).revoked_at).toEqual(revoked.revoked_at);
  });

  it('an expired key is refused, shown as expired, and cannot be rotated', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const { apiKey, key } = await create(project, { name: 'short-lived', scopes: ['read'], expires_at: expiresAt.toISOString() });
    expect(apiKey.expires_at).toEqual(expiresAt);
    const clock = { offset: 0 };
    const auth = instance(clock);
    expect(await principalOf(auth, key)).not.toBeNull();
    clock.offset = 60_001;
    expect(await principalOf(auth, key)).toBeNull();
    expect(presentApiKey(apiKey, new Date(Date.now() + 60_001)).status).toBe('expired');

    await t.repos.apiKeys.collection.updateOne({ _id: apiKey._id }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect(await principalOf(instance(), key)).toBeNull();
    expect((await rejection(rotate(project, apiKey._id))).code).toBe('conflict');
  });

  it('records last_used_at at most once a minute per key, away from the key document', async () => {
    const { apiKey, key } = await create(project, { name: 'busy', scopes: ['read'] });
    const clock = { offset: 0 };
    const a = instance(clock);
    const b = instance(clock);
    const writes = vi.spyOn(t.repos.apiKeyUsage, 'touch');
    try {
      for (let i = 0; i < 5; i++) {
        await principalOf(a, key);
        await principalOf(b, key);
      }
      await settled(writes);
      const first = (await apiKeys.get(principal, project, apiKey._id)).last_used_at;
      expect(first).toBeInstanceOf(Date);
      // One attempt per instance, one write lands.
      expect(writes).toHaveBeenCalledTimes(2);
      expect((await Promise.all(writes.mock.results.map((r) => r.value))).filter(Boolean)).toHaveLength(1);
      // The database refuses a second write inside the minute, whoever asks.
      expect(await t.repos.apiKeyUsage.touch(apiKey._id, new Date(first!.getTime() + 30_000))).toBe(false);

      clock.offset = 61_000;
      await principalOf(a, key);
      await settled(writes);
      const second = (await apiKeys.get(principal, project, apiKey._id)).last_used_at!;
      expect(second.getTime()).toBeGreaterThanOrEqual(first!.getTime() + 60_000);
      expect(presentApiKey(await apiKeys.get(principal, project, apiKey._id)).last_used_at).toBe(second.toISOString());
      // Never written into the key document itself.
      expect(await t.repos.apiKeys.collection.findOne({ _id: apiKey._id })).not.toHaveProperty('last_used_at');
    } finally {
      writes.mockRestore();
    }
  });

  it('a revocation survives concurrent traffic, and concurrent rotations leave exactly one working secret', async () => {
    const { apiKey, key } = await create(project, { name: 'contended', scopes: ['read'] });
    const clock = { offset: 0 };
    const writes = vi.spyOn(t.repos.apiKeyUsage, 'touch');
    try {
      const traffic = Array.from({ length: 10 }, (_, i) => principalOf(instance({ offset: i * 61_000 }), key));
      await Promise.all([...traffic, apiKeys.revoke(principal, project, apiKey._id)]);
      await settled(writes);
    } finally {
      writes.mockRestore();
    }
    expect((await apiKeys.get(principal, project, apiKey._id)).status).toBe('revoked');
    expect(await principalOf(instance(clock), key)).toBeNull();

    const other = await create(project, { name: 'rotated twice at once', scopes: ['read'] });
    const [r1, r2] = await Promise.all([rotate(project, other.apiKey._id), rotate(project, other.apiKey._id)]);
    const auth = instance();
    const working = [(await principalOf(auth, r1.key)) !== null, (await principalOf(auth, r2.key)) !== null];
    expect(working.filter(Boolean)).toHaveLength(1);
    const stored = await apiKeys.get(principal, project, other.apiKey._id);
    expect(stored.prefix).toBe((working[0] ? r1 : r2).key.slice(0, 8));
    expect(await principalOf(auth, other.key)).toBeNull();
  });

  it('lists per project and account, and revokes every key of a deleted project', async () => {
    const p = await newProject();
    const keys = [];
    for (const name of ['one', 'two', 'three']) keys.push(await create(p, { name, scopes: ['read'] }));
    const otherProject = await create(await newProject(), { name: 'elsewhere', scopes: ['read'] });

    const listed = await apiKeys.list(principal, p, {}, { page: 1, per_page: 2 });
    expect(listed.total).toBe(3);
    expect(listed.items.map((k) => k.name)).toEqual(['one', 'two']);
    // Another account sees neither the project nor its keys.
    const stranger: Principal = { ...principal, accountId: newId('account') };
    expect((await rejection(apiKeys.list(stranger, p, {}, { page: 1, per_page: 20 }))).code).toBe('not_found');
    expect((await rejection(apiKeys.get(principal, await newProject(), keys[0]!.apiKey._id))).code).toBe('not_found');
    expect((await rejection(apiKeys.revoke(stranger, p, keys[0]!.apiKey._id))).code).toBe('not_found');

    await apiKeys.revoke(principal, p, keys[0]!.apiKey._id);
    expect(await apiKeys.revokeAllForProject(principal, await projects.get(principal, p))).toBe(2);
    const auth = instance();
    for (const k of keys) expect(await principalOf(auth, k.key)).toBeNull();
    expect(await principalOf(auth, otherProject.key)).not.toBeNull();
    expect((await apiKeys.list(principal, p, { status: 'active' }, { page: 1, per_page: 20 })).total).toBe(0);
  });

  it('an API key manages no keys, not even those of its own project (403)', async () => {
    const { apiKey } = await create(project, { name: 'admin key', scopes: ['admin'] });
    const asKey: Principal = { kind: 'api_key', id: apiKey._id, accountId: principal.accountId, projectId: project, scopes: new Set(['read', 'write', 'admin']), credential: 'api_key', credentialId: apiKey._id };
    for (const attempt of [
      () => create(project, { name: 'made by a key', scopes: ['read'] }, asKey),
      () => apiKeys.list(asKey, project, {}, { page: 1, per_page: 20 }),
      () => apiKeys.get(asKey, project, apiKey._id),
      () => rotate(project, apiKey._id, {}, asKey),
      () => apiKeys.revoke(asKey, project, apiKey._id),
    ])
      expect((await rejection(attempt())).code).toBe('forbidden');
    expect((await apiKeys.get(principal, project, apiKey._id)).status).toBe('active');
  });

  it('records create, rotate and revoke events without secrets', async () => {
    const c: Principal = { ...principal, accountId: newId('account') };
    const audited = await newProject(c);
    const { apiKey, key } = await create(audited, { name: 'audited', scopes: ['read'] }, c);
    const rotated = await rotate(audited, apiKey._id, { grace_period_seconds: 60 }, c);
    await apiKeys.revoke(c, audited, apiKey._id);
    const events = (await t.repos.events.page(c.accountId, {}, { page: 1, per_page: 10 })).items.filter((e) => e.type.startsWith('api_key.'));
    expect(events.map((e) => e.type)).toEqual(['api_key.revoked', 'api_key.rotated', 'api_key.created']);
    expect(events[1]!.data).toMatchObject({ api_key_id: apiKey._id, grace_period_seconds: 60 });
    const text = JSON.stringify(events);
    expect(text).not.toContain(key);
    expect(text).not.toContain(rotated.key);
    expect(text).not.toContain(hashApiKey(key));
  });
});
