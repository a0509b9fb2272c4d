import { newId } from '../../src/lib/ids.ts';
import type { ProjectDoc } from '../../src/repositories/projects.ts';
import { systemPrincipal } from '../../src/domain/principal.ts';
import { signInConfidential } from '../lib/seed.ts';
import { startBaseline } from '../lib/baseline.ts';
import type { BenchContext, Scenario } from '../lib/types.ts';
import { buildServices } from '../../test/support/services.ts';

/**
 * GET /v1/projects/:id, the hot read path of a deployer, with each credential that reaches it from a
 * server: an API key (looked up once, then served from the per-instance cache: no database round trip
 * for the credential) and a user access token (a JWT verified locally), beside the node:http baseline
 * (bench/lib/baselineServer.ts) that runs only the project lookup and answers the same JSON.
 */

interface Fixture {
  projectId: string;
  apiKey: string;
  userToken: string;
}

const fixtures = new WeakMap<object, Promise<Fixture>>();

/** Once per run: a project in the seed account, a read API key for it (through the service), a user token. */
function fixture(ctx: BenchContext): Promise<Fixture> {
  let pending = fixtures.get(ctx.seed);
  if (!pending) {
    pending = (async () => {
      const { repos, user } = ctx.seed;
      const now = new Date();
      const project: ProjectDoc = { _id: newId('project', now.getTime()), account_id: user.accountId, name: 'bench-read-target', name_lower: 'bench-read-target', status: 'active', deploy_target: 'fly', created_at: now, updated_at: now };
      await repos.projects.collection.insertOne(project);
      const { apiKeys } = buildServices(repos);
      const { key } = await apiKeys.create(systemPrincipal(user.accountId), project._id, { name: 'bench reader', scopes: ['read'] });
      const tokens = await signInConfidential(ctx.server.issuer, ctx.seed, 'read');
      return { projectId: project._id, apiKey: key, userToken: tokens.access_token };
    })();
    fixtures.set(ctx.seed, pending);
  }
  return pending;
}

export const getProjectApiKey: Scenario = {
  id: 'v1-project-get-api-key',
  title: 'GET /v1/projects/:id (API key)',
  compareTo: 'v1-project-get-baseline',
  target: 0.7,
  async prepare(ctx) {
    const { projectId, apiKey } = await fixture(ctx);
    return { requests: [{ method: 'GET', path: `/v1/projects/${projectId}`, headers: { authorization: `Bearer ${apiKey}` } }] };
  },
};

export const getProjectJwt: Scenario = {
  id: 'v1-project-get-jwt',
  title: 'GET /v1/projects/:id (user access token)',
  compareTo: 'v1-project-get-baseline',
  target: 0.7,
  async prepare(ctx) {
    const { projectId, userToken } = await fixture(ctx);
    return { requests: [{ method: 'GET', path: `/v1/projects/${projectId}`, headers: { authorization: `Bearer ${userToken}` } }] };
  },
};

export const getProjectBaseline: Scenario = {
  id: 'v1-project-get-baseline',
  title: '  baseline: node:http, same lookup, no auth',
  async prepare(ctx) {
    const { projectId } = await fixture(ctx);
    const baseline = await startBaseline({ uri: ctx.seed.uri, db: ctx.seed.dbName, accountId: ctx.seed.user.accountId, userId: ctx.seed.user.id });
    return { url: baseline.url, pid: baseline.pid, requests: [{ method: 'GET', path: `/v1/projects/${projectId}` }], close: () => baseline.stop() };
  },
};
