import { randomBytes } from 'node:crypto';
import type { Collection, Document } from 'mongodb';
import { newId } from '../src/lib/ids.ts';
import type { DeploymentDoc } from '../src/repositories/deployments.ts';
import { collectionName, storedArtifact } from '../src/repositories/oidc/index.ts';
import type { ProjectDoc } from '../src/repositories/projects.ts';
import type { UserDoc } from '../src/repositories/users.ts';
import { basicAuth, CookieJar, obtainTokens } from '../test/support/oauthDriver.ts';
import { signInConfidential } from './lib/seed.ts';
import { buildServices } from '../test/support/services.ts';
import { runScenario, type LoadOptions } from './lib/load.ts';
import type { BenchContext, Scenario, ScenarioResult } from './lib/types.ts';
import { rotatingRefresh } from './scenarios/token.ts';
import { alignedTable } from './lib/report.ts';

/**
 * The scaling table (`BENCH_SCALING=1 npm run bench`): the same requests while the collections they read
 * hold 10^3, 10^4 and 10^5 documents (BENCH_SCALING_SIZES), printed side by side. The datasets grow
 * between the columns, inserted straight into the database in batches (insertMany of 1,000):
 *
 * - projects of one account (that account's page of 20, and a project of it by id);
 * - projects spread over 100 other accounts (the page of a small tenant with 20 projects);
 * - deployments of one project (its page of 20);
 * - live grants and refresh tokens (a rotated refresh of a public client, a confidential client's refresh);
 * - users of one account (its page of 20).
 */

const FORM = 'application/x-www-form-urlencoded';
const BATCH = 1000;
const SPREAD_ACCOUNTS = 100;

export function scalingSizes(): number[] {
  const raw = process.env.BENCH_SCALING_SIZES ?? '1000,10000,100000';
  const sizes = raw.split(',').map((s) => Number(s.trim()));
  if (!sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 20 || n > 1_000_000)) throw new Error('BENCH_SCALING_SIZES: integers from 20 to 1000000, comma-separated');
  return sizes.sort((a, b) => a - b);
}

/** Inserts documents made by `make(i)` for i in [from, to), in batches. */
async function fill<T extends Document>(collection: Collection<T>, from: number, to: number, make: (i: number) => T): Promise<void> {
  for (let start = from; start < to; start += BATCH) {
    const batch: T[] = [];
    for (let i = start; i < Math.min(to, start + BATCH); i += 1) batch.push(make(i));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the driver's OptionalUnlessRequiredId<T>
    await collection.insertMany(batch as any, { ordered: false });
  }
}

interface Fixture {
  accountId: string;
  userId: string;
  token: string;
  projectId: string;
  small: { token: string };
  spreadAccounts: string[];
  userTemplate: UserDoc;
}

async function signIn(ctx: BenchContext, email: string, password: string): Promise<string> {
  const tokens = await signInConfidential(ctx.server.issuer, ctx.seed, 'read write', { email, password });
  return tokens.access_token;
}

async function makeFixture(ctx: BenchContext): Promise<Fixture> {
  const { repos } = ctx.seed;
  const { users } = buildServices(repos);
  const password = `bench-${randomBytes(12).toString('base64url')}`;
  const big = await users.createByOperator({ email: `bench-scale-${randomBytes(4).toString('hex')}@example.com`, name: 'Scaling account', role: 'owner', password });
  const small = await users.createByOperator({ email: `bench-tenant-${randomBytes(4).toString('hex')}@example.com`, name: 'Small tenant', role: 'developer', password });
  const now = Date.now();
  await fill(repos.projects.collection, 0, 20, (i) => project(small.account_id, now - 1_000_000 + i, `tenant-${i}`));
  const target = project(big.account_id, now, 'deploy-target');
  await repos.projects.collection.insertOne(target);
  const spreadAccounts = Array.from({ length: SPREAD_ACCOUNTS }, () => newId('account'));
  return {
    accountId: big.account_id,
    userId: big._id,
    token: await signIn(ctx, big.email, password),
    projectId: target._id,
    small: { token: await signIn(ctx, small.email, password) },
    spreadAccounts,
    userTemplate: (await repos.users.collection.findOne({ _id: big._id }))!,
  };
}

function project(accountId: string, at: number, name: string): ProjectDoc {
  const date = new Date(at);
  return { _id: newId('project', at), account_id: accountId, name, name_lower: name, status: 'active', deploy_target: null, created_at: date, updated_at: date };
}

/** Grows every dataset from `from` to `to` documents. */
async function grow(ctx: BenchContext, f: Fixture, from: number, to: number): Promise<void> {
  const { repos, database, user, publicClient } = ctx.seed;
  const base = Date.now() - 10_000_000;
  const tag = randomBytes(3).toString('hex');
  await fill(repos.projects.collection, from, to, (i) => project(f.accountId, base + i, `scale-${tag}-${i}`));
  await fill(repos.projects.collection, from, to, (i) => project(f.spreadAccounts[i % SPREAD_ACCOUNTS]!, base + i, `spread-${tag}-${i}`));
  await fill(repos.deployments.collection, from, to, (i): DeploymentDoc => {
    const at = new Date(base + i);
    return {
      _id: newId('deployment', at.getTime()),
      account_id: f.accountId,
      project_id: f.projectId,
      environment: i % 2 ? 'production' : 'staging',
      branch: 'main',
      commit_sha: null,
      status: 'succeeded',
      status_message: null,
      url: null,
      created_by: { type: 'user', id: f.userId },
      created_at: at,
      updated_at: at,
      started_at: null,
      finished_at: null,
    };
  });
  await fill(repos.users.collection, from, to, (i) => {
    const email = `scale-${tag}-${i}@example.com`;
    return { ...f.userTemplate, _id: newId('user', base + i), email, identity_id: newId('identity'), role: 'developer' as const };
  });
  // Live grants and refresh tokens of other sessions, in their stored form (sealed under their own ids).
  const now = Date.now();
  const expiresAt = new Date(now + 30 * 24 * 3600_000);
  const grants = database.db.collection<Document>(collectionName('Grant'));
  const refreshTokens = database.db.collection<Document>(collectionName('RefreshToken'));
  const grantIds: string[] = [];
  await fill(grants, from, to, () => {
    const id = randomBytes(32).toString('base64url');
    grantIds.push(id);
    return { ...storedArtifact('Grant', id, { kind: 'Grant', jti: id, accountId: user.id, clientId: publicClient.clientId, exp: Math.floor(expiresAt.getTime() / 1000) }, expiresAt), account_id: user.id, client_id: publicClient.clientId };
  });
  await fill(refreshTokens, from, to, (i) => {
    const id = randomBytes(32).toString('base64url');
    const payload = {
      kind: 'RefreshToken',
      jti: id,
      iat: Math.floor(now / 1000) - 60,
      exp: Math.floor(expiresAt.getTime() / 1000),
      accountId: user.id,
      clientId: publicClient.clientId,
      grantId: grantIds[i - from]!,
      gty: 'authorization_code refresh_token',
      scope: 'offline_access read',
      resource: `${ctx.server.url}/v1`,
      rotations: 0,
      iiat: Math.floor(now / 1000) - 60,
      expiresWithSession: false,
    };
    return storedArtifact('RefreshToken', id, payload, expiresAt);
  });
}

function cells(f: Fixture, ctx: BenchContext): Scenario[] {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const get = (id: string, title: string, path: string, token: string): Scenario => ({ id, title, prepare: async () => ({ requests: [{ method: 'GET', path, headers: bearer(token) }] }) });
  return [
    get('scale-project-get', 'GET /v1/projects/:id (one account of N)', `/v1/projects/${f.projectId}`, f.token),
    get('scale-projects-page', 'GET /v1/projects page of 20 (one account of N)', '/v1/projects?per_page=20', f.token),
    get('scale-projects-tenant', "GET /v1/projects, a tenant of 20 (N over 100 others' accounts)", '/v1/projects?per_page=20', f.small.token),
    get('scale-deployments-page', 'GET /v1/projects/:id/deployments page of 20 (N of one project)', `/v1/projects/${f.projectId}/deployments?per_page=20`, f.token),
    get('scale-users-page', 'GET /v1/users page of 20 (N of one account)', '/v1/users?per_page=20', f.token),
    {
      id: 'scale-refresh-public',
      title: 'POST /oauth/token refresh, public, rotated (N live grants + N refresh tokens)',
      async prepare() {
        const { publicClient, user } = ctx.seed;
        const jar = new CookieJar();
        const pool: string[] = [];
        for (let i = 0; i < ctx.connections * 2 + 1; i += 1) {
          const tokens = await obtainTokens({ issuer: ctx.server.issuer, clientId: publicClient.clientId, redirectUri: publicClient.redirectUri, scope: 'read', email: user.email, password: user.password }, jar);
          pool.push(tokens.refresh_token!);
        }
        return { requests: [rotatingRefresh(publicClient.clientId, pool)], warmup: false };
      },
    },
    {
      id: 'scale-refresh-confidential',
      title: 'POST /oauth/token refresh, confidential (same)',
      async prepare() {
        const { confidentialClient } = ctx.seed;
        const tokens = await signInConfidential(ctx.server.issuer, ctx.seed, 'read write');
        return {
          requests: [
            {
              method: 'POST',
              path: '/oauth/token',
              headers: { 'content-type': FORM, authorization: basicAuth(confidentialClient.clientId, confidentialClient.clientSecret) },
              body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: confidentialClient.clientId }).toString(),
            },
          ],
        };
      },
    },
  ];
}

export interface ScalingReport {
  table: string;
  results: Map<number, ScenarioResult[]>;
  seedSeconds: Map<number, number>;
}

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export async function runScaling(ctx: BenchContext, options: LoadOptions): Promise<ScalingReport> {
  const sizes = scalingSizes();
  const f = await makeFixture(ctx);
  const results = new Map<number, ScenarioResult[]>();
  const seedSeconds = new Map<number, number>();
  let have = 0;
  for (const size of sizes) {
    const started = Date.now();
    progress(`scaling: growing every dataset from ${have.toLocaleString('en')} to ${size.toLocaleString('en')} documents`);
    await grow(ctx, f, have, size);
    have = size;
    seedSeconds.set(size, (Date.now() - started) / 1000);
    progress(`scaling: seeded in ${seedSeconds.get(size)!.toFixed(1)} s`);
    const row: ScenarioResult[] = [];
    for (const scenario of cells(f, ctx)) {
      progress(`scaling ${size.toLocaleString('en')}: ${scenario.title}`);
      row.push(await runScenario(scenario, ctx, options));
    }
    results.set(size, row);
  }
  return { table: formatScaling(sizes, results), results, seedSeconds };
}

function formatScaling(sizes: number[], results: Map<number, ScenarioResult[]>): string {
  const first = results.get(sizes[0]!)!;
  const last = results.get(sizes[sizes.length - 1]!)!;
  const header = ['scenario', ...sizes.flatMap((n) => [`N=${n.toLocaleString('en')} req/s`, 'p50 ms', 'p99 ms']), `p50 ×`];
  const rows = first.map((r, i) => [
    r.title,
    ...sizes.flatMap((n) => {
      const c = results.get(n)![i]!;
      return [c.requestsPerSecond.toFixed(0), c.p50Ms.toFixed(2), c.p99Ms.toFixed(2)];
    }),
    (last[i]!.p50Ms / r.p50Ms).toFixed(2),
  ]);
  return [alignedTable(header, rows), '', `p50 ×: p50 at N=${sizes[sizes.length - 1]!.toLocaleString('en')} / p50 at N=${sizes[0]!.toLocaleString('en')}`].join('\n');
}
