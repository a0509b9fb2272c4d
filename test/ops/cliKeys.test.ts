import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, useApiServer } from '../support/fixtures.ts';
import { runCli } from '../support/cli.ts';

/**
 * `keys list` used to do two things by a flag; now `keys list --project P` lists a project's API keys
 * and `keys material` the server's key material in keys/. `keys list` without --project still shows
 * the key material, with a one-line deprecation notice on stderr.
 */

const env = useApiServer();
let projectId: string;

const slipway = async (...args: string[]) => await runCli(env.server.config, args);

/** What keys/ holds, read from its files: signing key ids in order, the number of cookie keys, the data keys. */
async function onDisk() {
  const read = async (file: string) => JSON.parse(await readFile(path.join(env.server.config.keysDir, file), 'utf8')) as unknown;
  const signing = (await read('signing-keys.json')) as { keys: { kid: string; alg: string }[] };
  const cookies = (await read('cookie-keys.json')) as string[];
  const data = (await read('data-keys.json')) as { current: string; keys: Record<string, string> };
  return {
    signing: signing.keys.map((k, i) => ({ kid: k.kid, alg: k.alg, current: i === 0 })),
    cookies: cookies.length,
    data: { current: data.current, ids: Object.keys(data.keys) },
  };
}

beforeAll(async () => {
  projectId = (await createProject(env.api, env.adminToken, { name: 'cli-keys-split' })).id as string;
});

describe('keys material', () => {
  it('shows the ids of the key material in keys/ and which is current, never a key', async () => {
    const result = await slipway('keys', 'material', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const shown = JSON.parse(result.stdout) as unknown;
    expect(shown).toEqual(await onDisk());
    const cookies = JSON.parse(await readFile(path.join(env.server.config.keysDir, 'cookie-keys.json'), 'utf8')) as string[];
    for (const secret of cookies) expect(result.stdout).not.toContain(secret);
    expect(result.stdout).not.toMatch(/"(d|p|q|dp|dq|qi)":/);

    const human = await slipway('keys', 'material');
    expect(human.code).toBe(0);
    expect(JSON.parse(human.stdout)).toEqual(shown);
  });
});

describe('keys list', () => {
  it("--project lists the project's API keys only, without a notice", async () => {
    const first = JSON.parse((await slipway('keys', 'create', '--project', projectId, '--name', 'one', '--scopes', 'read', '--json')).stdout) as { id: string; key: string };
    const second = JSON.parse((await slipway('keys', 'create', '--project', projectId, '--name', 'two', '--scopes', 'read,write', '--json')).stdout) as { id: string; key: string };

    const listed = await slipway('keys', 'list', '--project', projectId, '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe('');
    const body = JSON.parse(listed.stdout) as { data: { id: string; project_id: string }[]; pagination: { total: number } };
    expect(body.data.map((k) => k.id).sort()).toEqual([first.id, second.id].sort());
    expect(body.data.every((k) => k.project_id === projectId)).toBe(true);
    expect(body.pagination.total).toBe(2);
    expect(body).not.toHaveProperty('signing');
    for (const key of [first.key, second.key]) expect(listed.stdout).not.toContain(key);

    const human = await slipway('keys', 'list', '--project', projectId);
    expect(human.code).toBe(0);
    expect(human.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]).sort()).toEqual([first.id, second.id].sort());

    const missing = await slipway('keys', 'list', '--project', 'proj_nothing', '--json');
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('without --project still shows the key material (deprecated): the same output as keys material, and one notice line on stderr', async () => {
    const material = await slipway('keys', 'material', '--json');
    for (const args of [['--json'], []]) {
      const old = await slipway('keys', 'list', ...args);
      expect(old.code, old.stderr).toBe(0);
      expect(JSON.parse(old.stdout)).toEqual(JSON.parse(material.stdout));
      const lines = old.stderr.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^slipway: .*deprecated.*`keys material`/);
    }
  });
});

describe('the help of the split', () => {
  it('keys --help lists both commands; keys list --help names --project and the deprecated form', async () => {
    const group = await slipway('keys', '--help');
    expect(group.code).toBe(0);
    expect(group.stdout).toMatch(/^\s+list \[options\]\s+list a project's API keys/m);
    expect(group.stdout).toMatch(/^\s+material \[options\]\s+list the signing, cookie and data keys in keys\//m);

    const list = await slipway('keys', 'list', '--help');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('--project <id>');
    expect(list.stdout).toMatch(/deprecated, use `slipway keys material`/);

    const material = await slipway('keys', 'material', '--help');
    expect(material.code).toBe(0);
    expect(material.stdout).toContain('Usage: slipway keys material');
    expect(material.stdout).not.toContain('--project');
  });
});
