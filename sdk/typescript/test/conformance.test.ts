/**
 * The shared scenario (sdk/scenarios/conformance.json), run with the same inputs and expectations as
 * the Python and Go suites: every case in order, against the live server or a local stub server.
 * A case name this file does not know fails.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Slipway, SlipwayError, SlipwayOAuth, type Project } from '../src/index.ts';
import { harness, recordingFetch } from './support/env.ts';
import { REPO_ROOT } from './support/harness.ts';

interface Case {
  name: string;
  about: string;
  input: Record<string, unknown>;
  expect: Record<string, unknown>;
}

const scenario = JSON.parse(readFileSync(path.join(REPO_ROOT, 'sdk', 'scenarios', 'conformance.json'), 'utf8')) as { version: number; cases: Case[] };
const run = randomBytes(5).toString('hex');

/** The input with `{run}` replaced in every string. */
function fill<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll('{run}', run) as T;
  if (Array.isArray(value)) return value.map(fill) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)])) as T;
  return value;
}

/** `error_type: "sdk"` is the SDK's own error class; `code` and `status` as given (null: no response). */
function expectError(err: unknown, expected: Record<string, unknown>): void {
  expect(expected.error_type).toBe('sdk');
  expect(err, `not a SlipwayError: ${String(err)}`).toBeInstanceOf(SlipwayError);
  const e = err as SlipwayError;
  expect({ code: e.code, status: e.status }).toEqual({ code: expected.code, status: expected.status });
}

async function listen(server: Server | net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// What the cases share: an admin client (client credentials of the confidential client) and the project `create` made.
let admin: Slipway;
let project: Project | undefined;
const stubs: (Server | net.Server)[] = [];
const sockets = new Set<net.Socket>();

beforeAll(() => {
  const info = harness();
  const oauth = new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.confidential_client.client_id, clientSecret: info.confidential_client.client_secret });
  admin = new Slipway({ baseUrl: info.base_url, auth: oauth.clientCredentialsSession('read write admin') });
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(stubs.map((s) => new Promise((resolve) => s.close(resolve))));
});

const cases: Record<string, (input: Record<string, unknown>, expected: Record<string, unknown>) => Promise<void>> = {
  async create(input, expected) {
    project = await admin.projects.create({ name: input.name as string, deploy_target: input.deploy_target as Project['deploy_target'] });
    expect(project.status).toBe(expected.status);
    expect(project.deploy_target).toBe(expected.deploy_target);
    expect(project.id.startsWith(expected.id_prefix as string), project.id).toBe(true);
  },

  async nested_list(input, expected) {
    expect(project, 'needs the project of `create`').toBeDefined();
    for (const environment of input.environments as string[]) await admin.deployments.create(project!.id, { environment, branch: input.branch as string });
    const info = harness();
    const recorder = recordingFetch();
    const oauth = new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.confidential_client.client_id, clientSecret: info.confidential_client.client_secret });
    const counted = new Slipway({ baseUrl: info.base_url, auth: oauth.clientCredentialsSession('read'), fetch: recorder.fetch });
    const seen = [];
    for await (const deployment of counted.deployments.listAll(project!.id, { per_page: input.per_page as number })) seen.push(deployment);
    const pages = recorder.calls.filter((c) => c.method === 'GET' && new URL(c.url).pathname === `/v1/projects/${project!.id}/deployments`);
    expect(seen).toHaveLength(expected.count as number);
    expect(new Set(seen.map((d) => d.id)).size).toBe(seen.length);
    expect(seen.map((d) => d.environment)).toEqual(expected.order);
    expect(pages).toHaveLength(expected.pages_fetched as number);
  },

  async idempotent_retry(input, expected) {
    const info = harness();
    const clientOf = () => {
      const oauth = new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.confidential_client.client_id, clientSecret: info.confidential_client.client_secret });
      return new Slipway({ baseUrl: info.base_url, auth: oauth.clientCredentialsSession('read write') });
    };
    // Two separate clients, as a first attempt and its retry after a restart would be.
    const options = { idempotencyKey: input.idempotency_key as string };
    const first = await clientOf().projects.create({ name: input.name as string }, options);
    const second = await clientOf().projects.create({ name: input.name as string }, options);
    expect(first.id === second.id).toBe(expected.same_id);
    let withName = 0;
    for await (const p of admin.projects.listAll({ per_page: 100 })) if (p.name === input.name) withName += 1;
    expect(withName).toBe(expected.projects_with_name);
  },

  async set_to_null(input, expected) {
    expect(project, 'needs the project of `create`').toBeDefined();
    const updated = await admin.projects.update(project!.id, input as { deploy_target: null });
    const read = await admin.projects.get(project!.id);
    for (const [field, value] of Object.entries(expected)) {
      expect(updated[field as keyof Project], field).toEqual(value);
      expect(read[field as keyof Project], field).toEqual(value);
    }
  },

  async aborted_call(input, expected) {
    // Accepts the connection and the request, and never answers. Counts requests, not connections
    // (Node's fetch may open a spare connection after an abort, and send nothing on it).
    let requests = 0;
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.once('data', () => (requests += 1));
      socket.on('close', () => sockets.delete(socket));
    });
    stubs.push(silent);
    const client = new Slipway({ baseUrl: await listen(silent), apiKey: 'slw_conformance' });
    const err = await client.projects.list(undefined, { timeout: input.timeout_ms as number, maxRetries: input.max_retries as number }).catch((e: unknown) => e);
    expectError(err, expected);
    // Nothing is sent again after the deadline.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requests).toBe(1);
  },

  async html_502(input, expected) {
    let requests = 0;
    const proxy = createServer((req, res) => {
      requests += 1;
      req.resume();
      res.writeHead(input.status as number, { 'content-type': input.content_type as string }).end(input.body as string);
    });
    stubs.push(proxy);
    const client = new Slipway({ baseUrl: await listen(proxy), apiKey: 'slw_conformance' });
    const err = await client.projects.list(undefined, { maxRetries: input.max_retries as number }).catch((e: unknown) => e);
    expectError(err, expected);
    expect(requests).toBe(1);
  },
};

describe(`conformance scenario v${scenario.version} (sdk/scenarios/conformance.json, run ${run})`, () => {
  it('knows every case of the scenario', () => {
    const unknown = scenario.cases.map((c) => c.name).filter((name) => !(name in cases));
    expect(unknown, 'cases this suite does not implement').toEqual([]);
    expect(scenario.cases.length).toBeGreaterThan(0);
  });

  for (const c of scenario.cases) {
    it(`${c.name}: ${c.about}`, async () => {
      const implementation = cases[c.name];
      if (!implementation) throw new Error(`unknown conformance case "${c.name}"`);
      await implementation(fill(c.input), c.expect);
    });
  }
});
