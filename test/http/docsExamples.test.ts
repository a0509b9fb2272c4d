import { spawn } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleSequence, operationExamples } from '../../src/http/docsExamples.ts';
import { useApiServer } from '../support/fixtures.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { waitFor } from '../support/processes.ts';
import { tempDir } from '../support/tempDirs.ts';

/**
 * The curl examples of /docs, copied from the page as a reader copies them, run in order as one script
 * by /bin/sh against the real server, with nothing on PATH but curl, sed, od and tr. The one change made
 * to them: the webhook examples' https://ci.example.com URL points at a receiver on loopback (this
 * machine resolves no public names, and the server refuses a URL that does not resolve).
 */
const env = useApiServer({ overrides: { webhookAllowLoopback: true, webhookPollIntervalMs: 50 } });
let receiver: Receiver;
let page: string;
let doc: OpenAPIObject;
beforeAll(async () => {
  receiver = await startReceiver();
  page = await (await fetch(`${env.server.url}/docs`)).text();
  doc = env.api.document as OpenAPIObject;
});
afterAll(async () => {
  await receiver.close();
});

const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** The curl example of one operation's section, as the page shows it. */
function curlOf(operationId: string): string {
  const start = page.indexOf(`<section class="op" id="${operationId}">`);
  expect(start, operationId).toBeGreaterThan(-1);
  const end = page.indexOf('</section>', start);
  const match = /<pre class="example" data-example="curl"[^>]*><code>([^]*?)<\/code><\/pre>/.exec(page.slice(start, end));
  expect(match, operationId).toBeTruthy();
  return unescape(match![1]!);
}

/** A directory holding only the tools the examples may use (and the shell itself). */
function posixToolsOnly(): string {
  const dir = tempDir('slipway-docs-path-');
  for (const tool of ['curl', 'sed', 'od', 'tr']) symlinkSync(`/usr/bin/${tool}`, path.join(dir, tool));
  return dir;
}

function runSh(script: string, pathDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-s'], { env: { PATH: pathDir, HOME: tempDir('slipway-docs-home-') } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(script);
  });
}

/**
 * Operations whose success needs a state that one pass through the examples does not make (docs/product.md
 * §9: a review needs a waiting deployment, a rollback an earlier success of the environment): their
 * example still runs, and answers the documented refusal a reader would get at that point.
 */
const NEEDS_STATE: Record<string, string> = { reviewDeployment: 'invalid_transition', rollbackEnvironment: 'conflict' };

describe('/docs curl examples', () => {
  it('use no uuidgen, no invented ids and no "string" placeholders', () => {
    const all = exampleSequence(doc).map(({ op }) => curlOf(op.operationId!));
    expect(all.length).toBeGreaterThan(30);
    const text = all.join('\n');
    expect(text).not.toContain('uuidgen');
    expect(text).not.toMatch(/\/(proj|dep|cfg|key|usr|whk|dlv)_[0-9a-z]{10,}/);
    expect(text).not.toMatch(/"string"/);
  });

  it('run in sequence with /bin/sh: every one answers its documented success status, ids flow from answer to answer', async () => {
    const sequence = exampleSequence(doc);
    const examples = sequence.map(({ method, path: route, op }) => ({ op, ...operationExamples(doc, method, route, op) }));
    const step = ({ op }: (typeof examples)[number]) =>
      `printf '\\n@@op %s\\n' ${op.operationId}\n${curlOf(op.operationId!).replaceAll('https://ci.example.com/hooks/slipway', `${receiver.url}/slipway`)}\n`;
    // Redelivering needs a delivery that has finished, as a reader's would be by the time they read
    // on: the script stops before the list of deliveries, the test waits for the ping's delivery to
    // be made, and the script goes on in a second shell with the variables the first one set.
    const split = examples.findIndex(({ sets }) => sets === 'DELIVERY_ID');
    expect(split).toBeGreaterThan(0);
    const carried = ['TOKEN', ...new Set(examples.slice(0, split).flatMap((e) => (e.sets ? [e.sets] : [])))];
    const state = path.join(tempDir('slipway-docs-state-'), 'variables.sh');
    const prologue = ['set -u', `curl() { command curl -w '\\n@@status %{http_code}\\n' "$@"; }`];
    const first = [
      ...prologue,
      `TOKEN='${env.adminToken}'`,
      ...examples.slice(0, split).map(step),
      ...carried.map((name) => `printf "${name}='%s'\\n" "$${name}" >> '${state}'`),
    ].join('\n');
    const second = [...prologue, `. '${state}'`, ...examples.slice(split).map(step), "printf '\\n@@end %s %s\\n' \"$PROJECT_ID\" \"$WEBHOOK_ID\""].join('\n');

    const tools = posixToolsOnly();
    const one = await runSh(first, tools);
    expect(one.stderr).toBe('');
    expect(one.code, one.stdout.slice(-3000)).toBe(0);
    const webhookId = /^WEBHOOK_ID='(whk_[^']+)'$/m.exec(await readFile(state, 'utf8'))?.[1];
    expect(webhookId).toBeTruthy();
    await waitFor('the ping to be delivered', async () => {
      const response = await fetch(`${env.server.url}/v1/webhooks/${webhookId}/deliveries`, { headers: { authorization: `Bearer ${env.adminToken}` } });
      const body = (await response.json()) as { data: { status: string }[] };
      return body.data.length > 0 && body.data.every((d) => d.status !== 'pending');
    }, 10_000, 20);
    const two = await runSh(second, tools);
    expect(two.stderr).toBe('');
    expect(two.code, two.stdout.slice(-3000)).toBe(0);
    const result = { stdout: one.stdout + two.stdout };

    const outputs = new Map(result.stdout.split('\n@@op ').slice(1).map((chunk) => [chunk.slice(0, chunk.indexOf('\n')), chunk.slice(chunk.indexOf('\n') + 1)]));
    expect([...outputs.keys()]).toEqual(sequence.map(({ op }) => op.operationId));
    for (const { method, path: route, op } of sequence) {
      const out = outputs.get(op.operationId!)!;
      const documented = Object.keys(op.responses ?? {}).find((s) => s.startsWith('2'));
      const refusal = NEEDS_STATE[op.operationId!];
      if (refusal) expect(out, `${method.toUpperCase()} ${route}`).toContain(`"code":"${refusal}"`);
      else expect(/@@status (\d{3})/.exec(out)?.[1], `${method.toUpperCase()} ${route}:\n${out}`).toBe(documented);
    }
    // The ids came from the answers: the last project id is the one created, now deleted.
    const [, projectId, lastWebhookId] = /@@end (\S+) (\S+)/.exec(result.stdout)!;
    expect(projectId).toMatch(/^proj_/);
    expect(lastWebhookId).toBe(webhookId);
    const gone = await fetch(`${env.server.url}/v1/projects/${projectId}`, { headers: { authorization: `Bearer ${env.adminToken}` } });
    expect(gone.status).toBe(404);
    await gone.body?.cancel();
    // The ping reached the receiver, signed (the webhook is deleted right after its redelivery is queued).
    expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'webhook.ping' });
    expect(receiver.received.every((r) => typeof r.headers['slipway-signature'] === 'string')).toBe(true);
  });
});
