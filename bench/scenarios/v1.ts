import { randomBytes } from 'node:crypto';
import { newId } from '../../src/lib/ids.ts';
import type { ProjectDoc } from '../../src/repositories/projects.ts';
import { signInConfidential } from '../lib/seed.ts';
import { startBaseline } from '../lib/baseline.ts';
import type { BenchContext, Scenario } from '../lib/types.ts';
import { buildServices } from '../../test/support/services.ts';

/**
 * The /v1 read and write paths, each beside a baseline (bench/lib/baselineServer.ts: bare node:http,
 * the same driver queries, the same JSON, no authentication) so the table shows what Slipway's request
 * pipeline (JWT verification, principal and revocation caches, the MongoDB rate-limit counter,
 * validation, presenters, logging) costs on top of the database work.
 */

const PROJECTS = 10_000;
/**
 * Stock FerretDB 1.24 (SQLite) neither pushed a sort down nor counted from an index: one page of 20 newest
 * of 10,000 projects plus the total read and sorted all 10,000 documents (~0.5–1 s), so the list
 * scenarios use 2 connections and a 30 s timeout, kept so that runs stay comparable. Slipway's patched
 * build (tools/ferretdb/patches) reads the page from the index and counts from it.
 */
const LIST_CONNECTIONS = 2;
const LIST_TIMEOUT_SECONDS = 30;

interface V1Fixture {
  token: string;
  deployProjectId: string;
  /** A second account with 20 projects: the same request where the database answers quickly. */
  small: { token: string; accountId: string; userId: string };
}

function projectDocs(accountId: string, count: number): ProjectDoc[] {
  const base = Date.now() - count;
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(base + i);
    return { _id: newId('project', at.getTime()), account_id: accountId, name: `bench-${i}`, name_lower: `bench-${i}`, status: 'active', deploy_target: i % 3 ? 'aws' : null, created_at: at, updated_at: at };
  });
}

const fixtures = new WeakMap<object, Promise<V1Fixture>>();
const bigAccounts = new WeakMap<object, Promise<void>>();

/**
 * Once per run: a project to deploy to and a user token in the seed account, and a second account with
 * 20 projects and its own user token.
 */
function fixture(ctx: BenchContext): Promise<V1Fixture> {
  let pending = fixtures.get(ctx.seed);
  if (!pending) {
    pending = (async () => {
      const { repos, user } = ctx.seed;
      const now = new Date();
      const deployTo: ProjectDoc = { _id: newId('project'), account_id: user.accountId, name: 'bench-deploy-target', name_lower: 'bench-deploy-target', status: 'active', deploy_target: 'fly', created_at: now, updated_at: now };
      await repos.projects.collection.insertOne(deployTo);
      const signIn = async (email: string, password: string) =>
        (
          await signInConfidential(ctx.server.issuer, ctx.seed, 'read write', { email: email, password: password })
        ).access_token;
      const password = `bench-${randomBytes(12).toString('base64url')}`;
      const other = await buildServices(repos).users.createByOperator({ email: `bench-small-${randomBytes(4).toString('hex')}@example.com`, name: 'Small account', role: 'developer', password });
      await repos.projects.collection.insertMany(projectDocs(other.account_id, 20));
      return {
        token: await signIn(user.email, user.password),
        deployProjectId: deployTo._id,
        small: { token: await signIn(other.email, password), accountId: other.account_id, userId: other._id },
      };
    })();
    fixtures.set(ctx.seed, pending);
  }
  return pending;
}

/**
 * 10,000 more projects in the seed account, added only when a 10,000-project scenario first runs (they
 * come last): on FerretDB every query that filters the collection reads all of them.
 */
async function bigAccount(ctx: BenchContext): Promise<V1Fixture> {
  const base = await fixture(ctx);
  let pending = bigAccounts.get(ctx.seed);
  if (!pending) {
    pending = (async () => {
      const docs = projectDocs(ctx.seed.user.accountId, PROJECTS);
      for (let start = 0; start < PROJECTS; start += 1000) await ctx.seed.repos.projects.collection.insertMany(docs.slice(start, start + 1000));
    })();
    bigAccounts.set(ctx.seed, pending);
  }
  await pending;
  return base;
}

async function baselineFor(ctx: BenchContext, account = { accountId: ctx.seed.user.accountId, userId: ctx.seed.user.id }) {
  return await startBaseline({ uri: ctx.seed.uri, db: ctx.seed.dbName, ...account });
}

const DEPLOYMENT_BODY = JSON.stringify({ environment: 'production', branch: 'main' });

export const listProjects: Scenario = {
  id: 'v1-projects-list',
  title: `GET /v1/projects (20 of 10,000, user token, ${LIST_CONNECTIONS} conn.)`,
  compareTo: 'v1-projects-list-baseline',
  target: 0.7,
  async prepare(ctx) {
    const { token } = await bigAccount(ctx);
    return {
      connections: LIST_CONNECTIONS,
      timeoutSeconds: LIST_TIMEOUT_SECONDS,
      requests: [{ method: 'GET', path: '/v1/projects', headers: { authorization: `Bearer ${token}` } }],
    };
  },
};

export const listProjectsBaseline: Scenario = {
  id: 'v1-projects-list-baseline',
  title: '  baseline: node:http, same query, no auth',
  async prepare(ctx) {
    await bigAccount(ctx);
    const baseline = await baselineFor(ctx);
    return {
      url: baseline.url,
      pid: baseline.pid,
      connections: LIST_CONNECTIONS,
      timeoutSeconds: LIST_TIMEOUT_SECONDS,
      requests: [{ method: 'GET', path: '/v1/projects' }],
      close: () => baseline.stop(),
    };
  },
};

export const listProjectsSmall: Scenario = {
  id: 'v1-projects-list-small',
  title: 'GET /v1/projects (all 20 of an account, user token)',
  compareTo: 'v1-projects-list-small-baseline',
  target: 0.7,
  async prepare(ctx) {
    const { small } = await fixture(ctx);
    return { requests: [{ method: 'GET', path: '/v1/projects', headers: { authorization: `Bearer ${small.token}` } }] };
  },
};

export const listProjectsSmallBaseline: Scenario = {
  id: 'v1-projects-list-small-baseline',
  title: '  baseline: node:http, same query, no auth',
  async prepare(ctx) {
    const { small } = await fixture(ctx);
    const baseline = await baselineFor(ctx, { accountId: small.accountId, userId: small.userId });
    return { url: baseline.url, pid: baseline.pid, requests: [{ method: 'GET', path: '/v1/projects' }], close: () => baseline.stop() };
  },
};

export const createDeployment: Scenario = {
  id: 'v1-deployments-create',
  title: 'POST /v1/projects/:id/deployments (user token)',
  compareTo: 'v1-deployments-create-baseline',
  async prepare(ctx) {
    const { token, deployProjectId } = await fixture(ctx);
    return {
      requests: [
        {
          method: 'POST',
          path: `/v1/projects/${deployProjectId}/deployments`,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: DEPLOYMENT_BODY,
        },
      ],
    };
  },
};

export const createDeploymentBaseline: Scenario = {
  id: 'v1-deployments-create-baseline',
  title: '  baseline: node:http, same queries, no auth',
  async prepare(ctx) {
    const { deployProjectId } = await fixture(ctx);
    const baseline = await baselineFor(ctx);
    return {
      url: baseline.url,
      pid: baseline.pid,
      requests: [{ method: 'POST', path: `/v1/projects/${deployProjectId}/deployments`, headers: { 'content-type': 'application/json' }, body: DEPLOYMENT_BODY }],
      close: () => baseline.stop(),
    };
  },
};
