import { newId } from '../../src/lib/ids.ts';
import type { ProjectDoc } from '../../src/repositories/projects.ts';
import { obtainTokens } from '../lib/authorize.ts';
import { startBaseline } from '../lib/baseline.ts';
import type { BenchContext, Scenario } from '../lib/types.ts';

/**
 * The /v1 read and write paths, each beside a baseline (bench/lib/baselineServer.ts: bare node:http,
 * the same driver queries, the same JSON, no authentication) so the table shows what Slipway's request
 * pipeline (JWT verification, principal and revocation caches, the MongoDB rate-limit counter,
 * validation, presenters, logging) costs on top of the database work.
 */

const PROJECTS = 10_000;

interface V1Fixture {
  token: string;
  deployProjectId: string;
}

const fixtures = new WeakMap<object, Promise<V1Fixture>>();

/** Once per run: 10,000 projects in the seed account, one project to deploy to, a user access token. */
function fixture(ctx: BenchContext): Promise<V1Fixture> {
  let pending = fixtures.get(ctx.seed);
  if (!pending) {
    pending = (async () => {
      const { repos, user, confidentialClient } = ctx.seed;
      const base = Date.now() - PROJECTS;
      for (let start = 0; start < PROJECTS; start += 1000) {
        const docs: ProjectDoc[] = [];
        for (let i = start; i < Math.min(PROJECTS, start + 1000); i++) {
          const at = new Date(base + i);
          docs.push({ _id: newId('proj', at.getTime()), account_id: user.accountId, name: `bench-${i}`, name_lower: `bench-${i}`, status: 'active', deploy_target: i % 3 ? 'aws' : null, created_at: at, updated_at: at });
        }
        await repos.projects.collection.insertMany(docs);
      }
      const now = new Date();
      const deployTo: ProjectDoc = { _id: newId('proj'), account_id: user.accountId, name: 'bench-deploy-target', name_lower: 'bench-deploy-target', status: 'active', deploy_target: 'fly', created_at: now, updated_at: now };
      await repos.projects.collection.insertOne(deployTo);
      const tokens = await obtainTokens({
        issuer: ctx.server.issuer,
        clientId: confidentialClient.clientId,
        clientSecret: confidentialClient.clientSecret,
        redirectUri: confidentialClient.redirectUri,
        scope: 'read write',
        email: user.email,
        password: user.password,
      });
      return { token: tokens.access_token, deployProjectId: deployTo._id };
    })();
    fixtures.set(ctx.seed, pending);
  }
  return pending;
}

async function baselineFor(ctx: BenchContext) {
  return await startBaseline({ uri: ctx.seed.uri, db: ctx.seed.dbName, accountId: ctx.seed.user.accountId, userId: ctx.seed.user.id });
}

const DEPLOYMENT_BODY = JSON.stringify({ environment: 'production', branch: 'main' });

export const listProjects: Scenario = {
  id: 'v1-projects-list',
  title: 'GET /v1/projects (20 of 10,000, user token)',
  compareTo: 'v1-projects-list-baseline',
  async prepare(ctx) {
    const { token } = await fixture(ctx);
    return { requests: [{ method: 'GET', path: '/v1/projects', headers: { authorization: `Bearer ${token}` } }] };
  },
};

export const listProjectsBaseline: Scenario = {
  id: 'v1-projects-list-baseline',
  title: '  baseline: node:http, same query, no auth',
  async prepare(ctx) {
    await fixture(ctx);
    const baseline = await baselineFor(ctx);
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
