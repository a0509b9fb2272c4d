import { spawn, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { createProject, useApiServer } from '../support/fixtures.ts';
import type { Api } from '../support/api.ts';
import type { TestServer } from '../support/server.ts';
import type { Tokens, TestUser } from '../support/tokens.ts';

/*
 * schemathesis (PyPI, pinned in scripts/schemathesis.sh) fuzzes the live server from its own
 * /openapi.json with every check on: a response the document does not allow, a request the document
 * allows but the server refuses (or the reverse), a 5xx, a wrong Allow header, … is a failure.
 * It runs once with a write token and once with an admin token, with a fixed seed and a bounded
 * number of examples per operation. SCHEMATHESIS_SEED runs it with another seed (to look further than
 * CI does: `SCHEMATHESIS_SEED=$RANDOM npx vitest run test/http/schemathesis.test.ts`).
 */
const SEED = Number(process.env.SCHEMATHESIS_SEED ?? 20261123);
const MAX_EXAMPLES = 25;
const SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'schemathesis.sh');
const REPORTS = path.join(PROJECT_ROOT, 'test-artifacts', 'schemathesis');

// The fuzzer sends a few thousand requests per credential: far more than a real client's hourly budget.
const env = useApiServer({ overrides: { apiRateLimitPerHour: 1_000_000 } });
let server: TestServer, api: Api, tokens: Tokens, owner: TestUser, adminToken: string;
let schemathesis: string;
beforeAll(() => ({ server, api, tokens, owner, adminToken } = env));

beforeAll(() => {
  // Installs it (a venv, once per machine) when it is not there yet; never skipped.
  const install = spawnSync('bash', [SCRIPT, '--install-only'], { encoding: 'utf8', timeout: 300_000 });
  if (install.status !== 0)
    throw new Error(`schemathesis is not installed and scripts/schemathesis.sh could not install it (exit ${install.status}):\n${install.stderr}${install.error ?? ''}`);
  schemathesis = install.stdout.trim().split('\n').at(-1)!;
}, 320_000);

/** Runs schemathesis against the server as `token`; resolves with its exit code and output. */
function fuzz(
  name: string,
  token: string,
  own: { clientId: string; userId: string },
  options: { schema?: string; extra?: string[] } = {},
): Promise<{ code: number | null; output: string }> {
  const args = [
    '--config-file',
    path.join(PROJECT_ROOT, 'test', 'support', 'schemathesis.toml'),
    'run',
    options.schema ?? `${server.url}/openapi.json`,
    ...(options.schema ? ['--url', server.url] : []),
    ...(options.extra ?? []),
    '--checks',
    'all',
    '--seed',
    String(SEED),
    '--max-examples',
    String(MAX_EXAMPLES),
    // One worker: hypothesis on CPython 3.11 fails at random with "AST constructor recursion depth
    // mismatch" when several threads generate at once.
    '--workers',
    '1',
    '--no-color',
    '--generation-database',
    'none',
    '--request-timeout',
    '20',
    '--header',
    `Authorization: Bearer ${token}`,
    '--report',
    'junit',
    '--report-junit-path',
    path.join(REPORTS, `${name}.xml`),
  ];
  return new Promise((resolve) => {
    const child = spawn(schemathesis, args, { cwd: PROJECT_ROOT, env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        NO_COLOR: '1',
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONPATH: path.join(PROJECT_ROOT, 'test', 'support'),
        SCHEMATHESIS_HOOKS: 'schemathesis_hooks',
        SLIPWAY_FUZZ_CLIENT_ID: own.clientId,
        SLIPWAY_FUZZ_USER_ID: own.userId,
      } });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    // Bounded: a run that hangs is killed and fails the test.
    const timer = setTimeout(() => child.kill('SIGKILL'), 200_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('schemathesis against the live server', () => {
  it.each([
    ['write', 'a write token'],
    ['admin', 'an admin token'],
  ])('passes every check with %s', { timeout: 230_000 }, async (scope) => {
    const user = scope === 'admin' ? owner : await tokens.user('developer', owner.accountId);
    const token = scope === 'admin' ? adminToken : await tokens.accessToken(user, 'write');
    // Something to find for the operations that list.
    await createProject(api, adminToken);
    await mkdir(REPORTS, { recursive: true });
    const clientId = await tokens.publicClient(owner.accountId);
    const { code, output } = await fuzz(scope, token, { clientId, userId: user.id });
    await writeFile(path.join(REPORTS, `${scope}.log`), output);
    const summary = output.split('\n').filter((l) => /passed|failed|errors?|Test cases|Seed/i.test(l)).slice(-12).join('\n');
    console.log(`[schemathesis ${scope}]\n${summary}`);
    expect(code, output.slice(-20_000)).toBe(0);
    expect(output).toMatch(/Test cases:\s+\d+ generated/);
    expect(output).not.toMatch(/\d+ (failures?|errors?)\b.* in [\d.]+s/);
    // The credential was good to the end: the run was authenticated throughout.
    expect((await api.get('/v1/projects', { token })).status).toBe(200);
  });

  it('fails when the document is looser than the server (here: PATCH /v1/projects/{id} without minProperties)', { timeout: 120_000 }, async () => {
    const document = structuredClone(api.document);
    delete document.components.schemas.UpdateProject.minProperties;
    const loose = path.join(REPORTS, 'loose-openapi.json');
    await mkdir(REPORTS, { recursive: true });
    await writeFile(loose, JSON.stringify(document));
    const clientId = await tokens.publicClient(owner.accountId);
    const { code, output } = await fuzz('loose', adminToken, { clientId, userId: owner.id }, { schema: loose, extra: ['--include-operation-id', 'updateProject'] });
    expect(code, output.slice(-5000)).not.toBe(0);
    expect(output).toMatch(/Schema-valid request rejected/);
  });
});
