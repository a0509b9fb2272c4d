import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { ensureFerretdbBinary, FERRETDB_VERSION, startFerretdb, type EmbeddedDatabase } from '../../src/db/embeddedFerretdb.ts';
import { Api } from '../support/api.ts';
import { createProject } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { tempDir } from '../support/tempDirs.ts';
import { Tokens } from '../support/tokens.ts';

/*
 * docs/product.md §10: a secret configuration value written into a log line is stored as `***`; the
 * clear value never reaches the database. Checked where it would end up: the embedded database's own
 * files (SQLite and its write-ahead log), on a FerretDB of this file's own, and the server's log.
 */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

async function filesHolding(dir: string, text: string): Promise<string[]> {
  const needle = Buffer.from(text, 'utf8');
  const found: string[] = [];
  for (const file of await filesUnder(dir)) if ((await readFile(file)).includes(needle)) found.push(file);
  return found;
}

describe.skipIf(Boolean(process.env.MONGODB_URI))('secrets in log lines, on the embedded database', () => {
  const dataDir = tempDir('slipway-log-secrets-');
  let database: EmbeddedDatabase, server: TestServer;
  beforeAll(async () => {
    database = await startFerretdb({ binary: await ensureFerretdbBinary(PROJECT_ROOT, FERRETDB_VERSION), dataDir });
    server = await startTestServer({ overrides: { mongodbUri: database.uri } });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await database?.stop();
  });

  it('the database files hold the masked line and no copy of the secret', async () => {
    const api = await Api.connect(server.url);
    const tokens = new Tokens(server);
    const token = await tokens.accessToken(await tokens.user('owner'), 'admin');
    const pid = (await createProject(api, token)).id as string;
    const deployment = await api.post(`/v1/projects/${pid}/deployments`, { token, body: { environment: 'production', branch: 'main' } });
    const secret = `pw-${Date.now()}-Zq8xYt`;
    expect((await api.post(`/v1/projects/${pid}/configurations`, { token, body: { environment: 'production', key: 'DB_PASSWORD', value: secret, secret: true } })).status).toBe(201);
    const marker = `marker-${Date.now()}`;
    const path = `/v1/projects/${pid}/deployments/${deployment.body.id}/logs`;
    const res = await api.post(path, { token, body: { lines: [{ text: `${marker} postgres://app:${secret}@db/app` }] }, headers: { 'Idempotency-Key': `k-${marker}` } });
    expect(res.status).toBe(202);
    expect((await api.get(path, { token })).body.data[0].text).toBe(`${marker} postgres://app:***@db/app`);
    await server.stop();
    // The masked line is in the files (the search finds what is there), the secret is not.
    expect(await filesHolding(dataDir, `${marker} postgres://app:***@db/app`)).not.toEqual([]);
    expect(await filesHolding(dataDir, secret)).toEqual([]);
    expect(server.logs.filter((line) => line.includes(secret))).toEqual([]);
  });
});
