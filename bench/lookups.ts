/**
 * `node bench/lookups.ts`: the cost of one command by `_id` (find, update, delete) and of an insert on the
 * embedded database, as the collection grows: documents of about 1 KB (a stored refresh token's size), 200
 * sequential calls of each at every size, p50 and p99 in milliseconds. Straight through the driver, no
 * server. FERRETDB_BINARY measures another build (e.g. an unpatched one) instead of the project's own.
 *
 *   LOOKUP_SIZES   collection sizes (default 1000,20000,100000)
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { PROJECT_ROOT } from '../src/config/index.ts';
import { FERRETDB_VERSION, ensureFerretdbBinary, startFerretdb } from '../src/db/embeddedFerretdb.ts';
import { percentile } from './lib/load.ts';

const CALLS = 200;
const sizes = (process.env.LOOKUP_SIZES ?? '1000,20000,100000').split(',').map(Number);

async function timed(fn: (i: number) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  const sorted = Float64Array.from(times).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

const doc = (id: string) => ({ _id: id, sealed: randomBytes(700).toString('base64'), grant_id: randomBytes(32).toString('base64url'), expires_at: new Date(Date.now() + 86_400_000) });

async function main(): Promise<void> {
  const binary = process.env.FERRETDB_BINARY ?? (await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'slipway-lookups-'));
  const ferretdb = await startFerretdb({ binary, dataDir: dir });
  const client = await new MongoClient(ferretdb.uri).connect();
  try {
    const col = client.db('lookups').collection<ReturnType<typeof doc>>('tokens');
    await col.createIndex({ grant_id: 1 }, { name: 'grant_id' });
    const ids: string[] = [];
    const rows: string[] = [];
    for (const size of sizes) {
      while (ids.length < size) {
        const batch = Array.from({ length: Math.min(1000, size - ids.length) }, () => doc(randomBytes(32).toString('hex')));
        await col.insertMany(batch, { ordered: false });
        ids.push(...batch.map((d) => d._id));
      }
      const pick = (i: number) => ids[(i * 7919) % ids.length]!;
      const find = await timed((i) => col.findOne({ _id: pick(i) }));
      const update = await timed((i) => col.updateOne({ _id: pick(i) }, { $set: { consumed_at: new Date() } }));
      const fresh: string[] = [];
      const insert = await timed(async () => {
        const d = doc(randomBytes(32).toString('hex'));
        fresh.push(d._id);
        await col.insertOne(d);
      });
      const del = await timed((i) => col.deleteOne({ _id: fresh[i]! }));
      const cell = (t: { p50: number; p99: number }) => `${t.p50.toFixed(2)} / ${t.p99.toFixed(2)}`;
      rows.push(`| ${size.toLocaleString('en')} | ${cell(find)} | ${cell(update)} | ${cell(insert)} | ${cell(del)} |`);
      process.stderr.write(`[lookups] ${rows[rows.length - 1]}\n`);
    }
    console.log(`binary: ${path.basename(binary)}; ${CALLS} sequential calls each, p50 / p99 ms`);
    console.log('| documents | findOne by _id | updateOne by _id | insertOne | deleteOne by _id |');
    console.log('|---:|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    await client.close();
    await ferretdb.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
