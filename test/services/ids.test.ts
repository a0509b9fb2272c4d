import { describe, expect, it } from 'vitest';
import { ID_PREFIX, idFloor, newId, type IdKind } from '../../src/lib/ids.ts';

describe('ids minted in one place', () => {
  it('gives every kind the prefix of the one table, unique and URL-safe', () => {
    const kinds = Object.keys(ID_PREFIX) as IdKind[];
    expect(new Set(Object.values(ID_PREFIX)).size).toBe(kinds.length);
    for (const kind of kinds) {
      const ids = Array.from({ length: 200 }, () => newId(kind));
      expect(new Set(ids).size).toBe(200);
      for (const id of ids) expect(id).toMatch(new RegExp(`^${ID_PREFIX[kind]}_[0-9A-Za-z]{20}(?:[0-9a-z]{6})?$`));
    }
    expect(newId('project')).toMatch(/^proj_[0-9a-z]{26}$/);
    // Always 20 base62 characters (about 119 bits), whatever the random bytes were.
    for (let i = 0; i < 2000; i++) expect(newId('oauthClient')).toMatch(/^cli_[0-9A-Za-z]{20}$/);
  });

  it('sorts time-ordered ids by creation time, and idFloor bounds what was minted from a time on', () => {
    const at = Date.UTC(2026, 0, 1);
    const earlier = newId('deployment', at - 1);
    const same = newId('deployment', at);
    const later = newId('deployment', at + 1000);
    const floor = idFloor('deployment', at);
    expect(floor).toMatch(/^dep_[0-9a-z]{10}$/);
    expect(earlier < floor).toBe(true);
    expect(same >= floor).toBe(true);
    expect(later > same).toBe(true);
  });
});
