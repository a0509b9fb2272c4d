import type { KeyMaterial } from '../keys/keystore.ts';
import type { Logger } from '../logger.ts';
import type { Repositories } from '../repositories/index.ts';

/** A data key the database still needs and keys/ lacks, with what it seals. */
export interface LostDataKey {
  kid: string;
  configurations: number;
  webhooks: number;
}

/** The start is refused: keys/ lacks data keys that seal values stored in the database. */
export class MissingDataKeysError extends Error {
  readonly lost: LostDataKey[];
  readonly keysDir: string;
  constructor(lost: LostDataKey[], keysDir: string) {
    const what = lost.map((k) => `${k.kid} (${k.configurations} secret configuration value(s), ${k.webhooks} webhook secret(s))`).join(', ');
    super(
      `${keysDir}/data-keys.json (KEYS_DIR) lacks data key(s) that seal data in this database: ${what}. ` +
        `Restore data-keys.json from a backup of KEYS_DIR, or, to run without them for good, start once with ACCEPT_LOST_DATA_KEYS=${lost.map((k) => k.kid).join(',')} ` +
        '(those values stay unreadable until set again; every token and session signed by lost keys has ended too).',
    );
    this.name = 'MissingDataKeysError';
    this.lost = lost;
    this.keysDir = keysDir;
  }
}

type Deps = Pick<Repositories, 'dataKeyRegistry' | 'configurations' | 'webhooks'>;

/**
 * Run at every start (server and CLI), after keys/ is loaded: refuses to go on when the database holds
 * values sealed by a data key that keys/ lacks (keys/ deleted, or restored from an old backup), instead
 * of generating new keys and answering every read of those values with an error. The registry names
 * the keys to look for; a registered key that no stored value uses any more is forgotten. Keys the
 * operator accepts as lost (`acceptLostDataKeys`) are marked so and only warned about. Then every key
 * in keys/ is registered, so the next start knows it.
 */
export async function checkDataKeys(repos: Deps, keys: KeyMaterial, options: { keysDir: string; acceptLost: string[]; logger: Logger }): Promise<void> {
  const present = new Set(Object.keys(keys.data.keys));
  let registered = await repos.dataKeyRegistry.list();
  if (registered.length === 0) {
    // A database from before the registry (or a new one): the ids its stored values name, read once.
    await repos.dataKeyRegistry.record([...new Set([...(await repos.configurations.sealingKeyIds()), ...(await repos.webhooks.sealingKeyIds())])]);
    registered = await repos.dataKeyRegistry.list();
  }
  const lost: LostDataKey[] = [];
  for (const record of registered) {
    if (present.has(record._id) || record.accepted_lost_at) continue;
    const configurations = await repos.configurations.countSealedWith(record._id);
    const webhooks = await repos.webhooks.countSealedWith(record._id);
    if (configurations + webhooks === 0) await repos.dataKeyRegistry.forget(record._id);
    else lost.push({ kid: record._id, configurations, webhooks });
  }
  const accepted = new Set(options.acceptLost);
  const refused = lost.filter((k) => !accepted.has(k.kid));
  if (refused.length) throw new MissingDataKeysError(refused, options.keysDir);
  const given = lost.filter((k) => accepted.has(k.kid));
  if (given.length) {
    await repos.dataKeyRegistry.acceptLost(given.map((k) => k.kid));
    options.logger.warn({ lost: given }, 'starting without lost data keys (ACCEPT_LOST_DATA_KEYS): the values they seal answer 409 secret_unreadable until set again');
  }
  await repos.dataKeyRegistry.record([...present]);
}
