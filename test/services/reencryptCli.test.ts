import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateKeys } from '../../src/keys/keystore.ts';
import { newId } from '../../src/lib/ids.ts';
import { systemPrincipal } from '../../src/domain/principal.ts';
import type { Repositories } from '../../src/repositories/index.ts';
import { presentConfiguration } from '../../src/presenters/configurations.ts';
import { createSecretBox, readDataKeysSync, type SecretBox } from '../../src/keys/secretBox.ts';
import { useTestDatabase } from '../support/fixtures.ts';
import { runCli } from '../support/cli.ts';
import { buildServices } from '../support/services.ts';

const t = useTestDatabase();
let keysDir: string;
let repos: Repositories;

beforeAll(async () => {
  repos = t.repos;
  keysDir = await mkdtemp(path.join(os.tmpdir(), 'slipway-test-keys-'));
});
afterAll(async () => {
  if (keysDir) await rm(keysDir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli({ mongodbDb: t.db.databaseName, keysDir }, args);

describe('slipway configs reencrypt', () => {
  it('moves every secret to the data key made by keys rotate-data', async () => {
    const keys = await loadOrCreateKeys(keysDir);
    const before = keys.data.current;
    const principal = systemPrincipal(newId('account'));
    const { projects } = buildServices(repos);
    const service = (secretBox: SecretBox) => buildServices(repos, { secretBox }).configurations;
    const project = (await projects.create(principal, { name: 'reencrypt' }))._id;
    const doc = await service(createSecretBox(keys.data)).create(principal, project, { environment: 'production', key: 'TOKEN', value: 'tok-123', secret: true });
    expect(doc.value_encrypted!.kid).toBe(before);

    const rotate = await cli('keys', 'rotate-data', '--json');
    expect(rotate.code, rotate.stderr).toBe(0);
    const after = (JSON.parse(rotate.stdout) as { current: string }).current;
    expect(after).not.toBe(before);

    const run = await cli('configs', 'reencrypt', '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ current_key: after, reencrypted: 1, skipped: 0, failed: [], by_key: { [after]: 1 } });

    const onlyNew = service(createSecretBox({ current: after, keys: { [after]: readDataKeysSync(keysDir).keys[after]! } }));
    const stored = await onlyNew.get(principal, project, doc._id, { reveal: true });
    expect(stored.value_encrypted!.kid).toBe(after);
    expect(presentConfiguration(stored).value).toBe('tok-123');

    const human = await cli('configs', 'reencrypt');
    expect(human.stdout).toContain(`re-encrypted 0 secret value(s) with ${after}; no value uses an older key`);
  });
});
