import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenAPIObject, OperationObject } from 'openapi3-ts/oas31';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/config/index.ts';
import { operationExamples, sdkExamples } from '../../src/http/docsExamples.ts';
import { escape } from '../../src/lib/html.ts';
import { Api } from '../support/api.ts';
import { useTestServer } from '../support/fixtures.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOC_ID = 'https://slipway.test/openapi.json';
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const server = useTestServer();
let api: Api;
let doc: OpenAPIObject;
let page: string;
let ajv: Ajv2020;

beforeAll(async () => {
  api = await Api.connect(server.url);
  doc = api.document as OpenAPIObject;
  const res = await fetch(`${server.url}/docs`);
  expect(res.status).toBe(200);
  page = await res.text();
  // Kept for review beside the dashboard's screenshots.
  await mkdir(path.join(PROJECT_ROOT, 'test-artifacts'), { recursive: true });
  await writeFile(path.join(PROJECT_ROOT, 'test-artifacts', 'docs.html'), page);
  ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID });
});

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, OperationObject>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ path, method, op })),
  );

/** The HTML of one operation's section on /docs. */
function section(id: string): string {
  const start = page.indexOf(`<section class="op" id="${id}">`);
  expect(start, `no section for ${id} on /docs`).toBeGreaterThan(-1);
  return page.slice(start, page.indexOf('</section>', start));
}

const examples = (html: string, kind: string) => [...html.matchAll(new RegExp(`<pre class="example" data-example="${kind}"[^>]*><code>([^]*?)</code></pre>`, 'g'))].map((m) => m[1]!);

describe('/docs examples', () => {
  it('every operation in /openapi.json has a curl snippet, a request example where it takes a body, and a response example, all valid against its schemas', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(20);
    let bodies = 0;
    for (const { path, method, op } of ops) {
      const html = section(op.operationId!);
      const where = `${method.toUpperCase()} ${path}`;
      const generated = operationExamples(doc, method, path, op);

      const [curl] = examples(html, 'curl');
      expect(curl, `${where}: curl`).toBeDefined();
      // Path parameters are the shell variables earlier examples set (test/http/docsExamples.test.ts runs them).
      const shellPath = path.replace(/\{([a-z_]+)\}/g, (_, name: string) => `$${name.toUpperCase()}`);
      expect(curl, `${where}: curl`).toContain(`curl -s -X ${method.toUpperCase()} &quot;${server.url}${escape(shellPath)}`);
      expect(generated.url, `${where}: every path parameter filled in`).not.toMatch(/[{}]/);
      if ((op.security ?? []).length) expect(curl).toContain('Authorization: Bearer $TOKEN');

      const hasBody = Boolean(op.requestBody);
      const [request] = examples(html, 'request');
      expect(request !== undefined, `${where}: request example`).toBe(hasBody);
      if (hasBody) {
        bodies++;
        expect(request).toBe(escape(JSON.stringify(generated.request, null, 2)));
        // The body curl sends is that same example.
        expect(curl).toContain(escape(JSON.stringify(generated.request).replace(/'/g, `'\\''`)));
        const validate = ajv.compile({ $ref: `${DOC_ID}#/${pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema')}` });
        expect(validate(generated.request), `${where}: request example ${JSON.stringify(generated.request)} — ${JSON.stringify(validate.errors)}`).toBe(true);
      }

      const [response] = examples(html, 'response');
      expect(response, `${where}: response example`).toBeDefined();
      expect(response).toContain(`HTTP/1.1 ${generated.response.status}`);
      expect(generated.response.status, `${where}: a success response`).toMatch(/^2/);
      if (generated.response.status !== '204') {
        expect(generated.response.body, `${where}: response body`).toBeDefined();
        expect(response).toContain(escape(JSON.stringify(generated.response.body, null, 2)));
      }
      // The response example conforms to the document, as a real response must (see Api.conform).
      const headers = new Headers({ 'x-request-id': 'r-12345678', 'content-type': 'application/json', 'ratelimit-limit': '1', 'ratelimit-remaining': '1', 'ratelimit-reset': '1' });
      api.conform(method.toUpperCase(), generated.url, { status: Number(generated.response.status), headers, body: generated.response.body, text: '' });
    }
    expect(bodies).toBeGreaterThan(5);
    expect(api.checked).toBe(ops.length);
  });

  it('documents the OAuth endpoints and flows, with a table of contents whose every link lands on the page', () => {
    const issuer = `${server.url}/oauth`;
    for (const [id, text] of [
      ['oauth-discovery', `${issuer}/.well-known/openid-configuration`],
      ['oauth-authorization-code', 'code_challenge_method=S256'],
      ['oauth-refresh', 'grant_type=refresh_token'],
      ['oauth-openid-connect', `${issuer}/userinfo`],
      ['oauth-openid-connect', 'id_token_hint='],
      ['oauth-dpop', 'Authorization: DPoP $ACCESS_TOKEN'],
      ['oauth-dpop', 'use_dpop_nonce'],
      ['oauth-par', `${issuer}/request`],
      ['oauth-device', `${issuer}/device/auth`],
      ['oauth-device', 'grant_type=urn:ietf:params:oauth:grant-type:device_code'],
      ['oauth-client-credentials', 'grant_type=client_credentials'],
      ['oauth-revocation', `${issuer}/token/revocation`],
      ['oauth-introspection', `${issuer}/token/introspection`],
    ])
      expect(section(id!)).toContain(text);
    const nav = page.slice(page.indexOf('<nav aria-label="Contents">'), page.indexOf('</nav>'));
    const targets = [...nav.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
    for (const { op } of operations()) expect(targets).toContain(op.operationId);
    for (const tag of new Set(operations().map(({ op }) => op.tags?.[0]))) expect(targets).toContain(`tag-${tag!.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`);
    for (const target of targets) expect(page, `#${target}`).toContain(`id="${target}"`);
    expect(page).not.toMatch(/<script/i);
  });

  it('shows each client library (TypeScript, Python, Go) creating a deployment with an API key and logging a user in with PKCE, with a pointer to its README', () => {
    const libraries = page.slice(page.indexOf('<section id="client-libraries"'), page.indexOf('<h2 class="tag"'));
    expect(libraries).toContain('<h2 id="client-libraries-title">Client libraries</h2>');
    const unescape = (html: string) => html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
    const snippet = (language: string, task: string) => {
      const match = new RegExp(`<pre class="example" data-example="sdk" data-language="${language}" data-task="${task}"><code>([^]*?)</code></pre>`).exec(libraries);
      expect(match, `${language} ${task}`).not.toBeNull();
      return unescape(match![1]!);
    };
    // The calls each SDK really has (each SDK's own suite typechecks or compiles these snippets from a live /docs).
    const expected = {
      typescript: {
        readme: 'sdk/typescript/README.md',
        deployment: [`new Slipway({ baseUrl: '${server.url}', apiKey: process.env.SLIPWAY_API_KEY })`, 'slipway.deployments.create(', 'slipway.deployments.update('],
        login: ['new SlipwayOAuth({', 'oauth.authorizationUrl({', 'oauth.exchangeCode(callbackUrl, { state, codeVerifier })', 'auth: oauth.session(tokens)'],
      },
      python: {
        readme: 'sdk/python/README.md',
        deployment: [`Slipway(base_url="${server.url}", api_key=`, 'client.deployments.create("proj_...", environment="production", branch="main")'],
        login: [`OAuth("${server.url}/oauth", `, 'oauth.authorization_url(scope=', 'oauth.exchange_code(callback_url, state=request.state, code_verifier=request.code_verifier)', 'Slipway(base_url=', 'oauth=oauth)'],
      },
      go: {
        readme: 'sdk/go/README.md',
        deployment: [`slipway.NewClient("${server.url}", slipway.WithAPIKey(`, 'client.Deployments.Create(ctx, "proj_...", slipway.CreateDeployment{'],
        login: [`slipway.OAuthConfig("${server.url}/oauth", `, 'slipway.NewAuthorizationRequest(cfg)', 'slipway.Exchange(ctx, cfg, req, callbackURL)', 'slipway.WithTokenSource(slipway.OAuthTokenSource(ctx, cfg, tok))'],
      },
    };
    const generated = sdkExamples(server.url, `${server.url}/oauth`);
    expect(generated.map((g) => g.language)).toEqual(['typescript', 'python', 'go']);
    for (const [language, want] of Object.entries(expected)) {
      const section = libraries.slice(libraries.indexOf(`<section class="op" id="sdk-${language}">`));
      expect(section, language).toContain(`README: <code>${want.readme}</code>`);
      const mine = generated.find((g) => g.language === language)!;
      for (const task of ['deployment', 'login'] as const) {
        const code = snippet(language, task);
        expect(code).toBe(mine.tasks[task]);
        for (const call of want[task]) expect(code, `${language} ${task}`).toContain(call);
      }
    }
    const nav = page.slice(page.indexOf('<nav aria-label="Contents">'), page.indexOf('</nav>'));
    for (const target of ['client-libraries', 'sdk-typescript', 'sdk-python', 'sdk-go']) expect(nav).toContain(`href="#${target}"`);
  });
});
