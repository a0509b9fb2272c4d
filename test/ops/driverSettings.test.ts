import { describe, expect, inject, it } from 'vitest';
import { connectDatabase } from '../../src/db/mongo.ts';

/** docs/OPERATIONS.md: majority, journaled writes; majority reads from the primary; MONGODB_URI may say otherwise. */
describe('database driver settings', () => {
  it('write concern majority with journal, read concern majority, reads from the primary, and it works on the embedded database', async () => {
    const database = await connectDatabase(inject('mongodbUri'), `t_driver_${Date.now()}`);
    try {
      expect(database.db.writeConcern).toMatchObject({ w: 'majority', journal: true });
      expect(database.db.readConcern?.level).toBe('majority');
      expect(database.db.readPreference.mode).toBe('primary');
      const col = database.db.collection<{ _id: string; n: number }>('settings_check');
      await col.insertOne({ _id: 'a', n: 1 });
      await col.updateOne({ _id: 'a' }, { $set: { n: 2 } });
      expect(await col.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2 });
      await database.db.dropDatabase();
    } finally {
      await database.close();
    }
  });

  it('MONGODB_URI options win over the defaults', async () => {
    const base = inject('mongodbUri').replace(/\/?$/, '/');
    const database = await connectDatabase(`${base}?w=1&readConcernLevel=local&readPreference=primaryPreferred`, `t_driver_${Date.now()}`);
    try {
      expect(database.db.writeConcern?.w).toBe(1);
      expect(database.db.readConcern?.level).toBe('local');
      expect(database.db.readPreference.mode).toBe('primaryPreferred');
    } finally {
      await database.close();
    }
  });
});
