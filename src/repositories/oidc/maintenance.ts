import type { Db } from 'mongodb';
import type { AdapterPayload } from 'oidc-provider';
import { deleteInBatches } from '../../db/deleteInBatches.ts';
import { claimOnce, sweepEnded } from '../../db/claims.ts';
import { oneTimePass, type MigrationOptions } from '../migrations.ts';
import {
  CONSUMED_REFRESH_TOKENS,
  GRANT_BOUND_MODELS,
  OIDC_CLAIMS,
  OIDC_MODELS,
  collectionName,
  storedArtifact,
  type ClaimDoc,
  type LegacyArtifact,
  type StoredArtifact,
} from './artifacts.ts';

/** The indexes of every artifact collection, the old consumed-token collection and the claims. */
export async function ensureOidcIndexes(db: Db): Promise<void> {
  for (const model of OIDC_MODELS) {
    const col = db.collection(collectionName(model));
    await col.createIndex({ expires_at: 1 }, { name: 'expires_at' });
    if ((GRANT_BOUND_MODELS as readonly string[]).includes(model)) await col.createIndex({ grant_id: 1 }, { name: 'grant_id' });
    if (model === 'Session') await col.createIndex({ uid: 1 }, { name: 'uid' });
    if (model === 'Session' || model === 'Grant') await col.createIndex({ account_id: 1 }, { name: 'account_id' });
    if (model === 'Grant') await col.createIndex({ client_id: 1 }, { name: 'client_id' });
    if (model === 'DeviceCode') await col.createIndex({ user_code: 1 }, { name: 'user_code' });
  }
  const consumed = db.collection(CONSUMED_REFRESH_TOKENS);
  await consumed.createIndex({ expires_at: 1 }, { name: 'expires_at' });
  await consumed.createIndex({ grant_id: 1 }, { name: 'grant_id' });
  await db.collection(OIDC_CLAIMS).createIndex({ expires_at: 1 }, { name: 'expires_at' });
}

/**
 * Deletes expired artifacts, used refresh tokens moved by earlier versions and claims (expiry is by
 * query plus this sweep, not a TTL index, which FerretDB does not have).
 */
export async function sweepOidc(db: Db, now = new Date()): Promise<number> {
  let removed = 0;
  for (const model of OIDC_MODELS) {
    removed += await deleteInBatches(db.collection<StoredArtifact>(collectionName(model)), { expires_at: { $lte: now } });
  }
  removed += await deleteInBatches(db.collection<StoredArtifact>(CONSUMED_REFRESH_TOKENS), { expires_at: { $lte: now } });
  removed += await sweepEnded(db.collection<ClaimDoc>(OIDC_CLAIMS), now);
  return removed;
}

const REKEYED = 'oidc-ids-hashed';

/**
 * Re-keys records stored before ids were hashed (raw `_id`, clear `payload`): each is written in the
 * stored form under the hash of its id, then the old one is deleted, so sessions, refresh tokens and
 * grants issued before the upgrade keep working. Idempotent. Run by `slipway db migrate`, and at the
 * first start of a database (then marked done; the pass reads every artifact collection whole, no index
 * answers `payload: {$exists: true}`: about 3 s per 100,000 artifacts on the embedded database).
 */
export async function migrateOidcArtifacts(db: Db, options: MigrationOptions = {}): Promise<number> {
  return await oneTimePass(db, REKEYED, options, () => rekeyLegacyArtifacts(db));
}

async function rekeyLegacyArtifacts(db: Db): Promise<number> {
  let migrated = 0;
  for (const model of OIDC_MODELS) {
    const col = db.collection<LegacyArtifact>(collectionName(model));
    for (const old of await col.find({ payload: { $exists: true } }).toArray()) {
      let payload: AdapterPayload;
      try {
        payload = JSON.parse(old.payload) as AdapterPayload;
      } catch {
        await col.deleteOne({ _id: old._id });
        continue;
      }
      const doc = storedArtifact(model, old._id, payload, old.expires_at);
      if (old.consumed_at) doc.consumed_at = old.consumed_at;
      // Not claimed: another instance migrated it first.
      await claimOnce(db.collection<StoredArtifact>(collectionName(model)), doc);
      await col.deleteOne({ _id: old._id });
      migrated++;
    }
  }
  return migrated;
}
