/**
 * The baseline for the /v1 scenarios: a bare node:http server, no framework, no authentication, no rate
 * limit, running the same driver queries as the real handlers (for a new deployment: the project
 * lookup, the insert and its audit event; for one project: the lookup) and answering the same JSON. The ratio
 * ours/baseline is what Slipway's whole request pipeline costs on top of the database work.
 *
 * Run as a child process by bench/lib/baseline.ts (so autocannon does not share its event loop):
 *   BASELINE_PORT, BASELINE_MONGODB_URI, BASELINE_DB, BASELINE_ACCOUNT_ID, BASELINE_USER_ID
 */
import http from 'node:http';
import { MongoClient } from 'mongodb';
import { newId } from '../../src/lib/ids.ts';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const client = new MongoClient(env('BASELINE_MONGODB_URI'), { maxPoolSize: 50 });
await client.connect();
const db = client.db(env('BASELINE_DB'));
const accountId = env('BASELINE_ACCOUNT_ID');
const userId = env('BASELINE_USER_ID');
const projects = db.collection<{ _id: string; account_id: string; name: string; status: string; deploy_target: string | null; created_at: Date; updated_at: Date }>('projects');
const deployments = db.collection<{ _id: string; [field: string]: unknown }>('deployments');
const events = db.collection<{ _id: string; [field: string]: unknown }>('events');

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  void (async () => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/v1/projects') {
      const filter = { account_id: accountId };
      const [items, total] = await Promise.all([projects.find(filter).sort({ _id: -1 }).skip(0).limit(20).toArray(), projects.countDocuments(filter)]);
      const data = items.map((p) => ({ id: p._id, name: p.name, status: p.status, deploy_target: p.deploy_target, created_at: iso(p.created_at), updated_at: iso(p.updated_at) }));
      return send(res, 200, { data, pagination: { page: 1, per_page: 20, total } });
    }
    const one = /^\/v1\/projects\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      // As the repository does: by _id alone, ownership checked here.
      const p = await projects.findOne({ _id: one[1]! });
      if (!p || p.account_id !== accountId) return send(res, 404, { error: { code: 'not_found' } });
      return send(res, 200, { id: p._id, name: p.name, status: p.status, deploy_target: p.deploy_target, created_at: iso(p.created_at), updated_at: iso(p.updated_at) });
    }
    const match = /^\/v1\/projects\/([^/]+)\/deployments$/.exec(url.pathname);
    if (req.method === 'POST' && match) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { environment: string; branch: string };
      // As the repository does: by _id alone, ownership checked here.
      const project = await projects.findOne({ _id: match[1]! });
      if (!project || project.account_id !== accountId) return send(res, 404, { error: { code: 'not_found' } });
      const now = new Date();
      const doc = {
        _id: newId('deployment', now.getTime()),
        account_id: accountId,
        project_id: project._id,
        environment: input.environment,
        branch: input.branch,
        commit_sha: null,
        status: 'queued',
        status_message: null,
        url: null,
        created_by: { type: 'user', id: userId },
        created_at: now,
        updated_at: now,
        started_at: null,
        finished_at: null,
      };
      await deployments.insertOne(doc);
      // The audit event the real handler records with every new deployment.
      await events.insertOne({
        _id: newId('event', now.getTime()),
        account_id: accountId,
        type: 'deployment.created',
        actor: { type: 'user', id: userId },
        project_id: project._id,
        data: { deployment_id: doc._id, environment: doc.environment, branch: doc.branch, commit_sha: null },
        created_at: now,
      });
      return send(res, 201, { ...doc, _id: undefined, id: doc._id, created_at: iso(now), updated_at: iso(now) });
    }
    if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
    return send(res, 404, { error: { code: 'not_found' } });
  })().catch((err: unknown) => send(res, 500, { error: { code: 'internal_error', message: (err as Error).message } }));
});
server.keepAliveTimeout = 65_000;
server.listen(Number(env('BASELINE_PORT')), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  void client.close().finally(() => process.exit(0));
});
