#!/usr/bin/env node
/**
 * Generates the SDK's code from Slipway's OpenAPI document, the way stripe-node's resources are made
 * from Stripe's spec. Every file it writes says so in its first line; hand-written code (auth,
 * retries, paging, webhooks, errors) lives elsewhere and is never touched.
 *
 *   node scripts/generate.mjs SOURCE [OUT_DIR]
 *
 * SOURCE is a running Slipway's base URL (its /openapi.json is fetched) or a path to the document.
 * OUT_DIR defaults to this package's `src`; the no-drift test generates into a temporary one and
 * compares. It writes:
 *   generated/openapi.ts   the request and response types (openapi-typescript, pinned)
 *   generated/meta.ts      VERSION (package.json), API_VERSION (the document's info.version), the
 *                          server's error codes (the Error schema's `code` enum)
 *   resources/<name>.ts    one class per tag: a method per operation, named by the rules below
 *   resources/index.ts     `Resources`, the flat tree the client exposes (`slipway.deployments`, …)
 *
 * The tree (decided for the TypeScript, Python and Go SDKs alike): one namespace per tag, camelCase
 * (`API keys` → `apiKeys`); a method per operation named by its operationId without the resource
 * noun (`listDeployments` → `list`, `rotateWebhookSecret` → `rotateSecret`), except the few in
 * METHOD_NAMES; path parameters first, in path order; then the query (GET/DELETE) or the body
 * (POST/PATCH); then per-call options. Every paged list also gets `listAll…`, a lazy iterator.
 *
 * Deterministic: the same document (and package.json) gives the same bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PACKAGE_DIR = path.resolve(import.meta.dirname, '..');

/** Names the noun rule does not give (the names decided for all three SDKs). */
const METHOD_NAMES = {
  getCurrentUser: 'me',
  changeOwnPassword: 'changePassword',
  registerOAuthClient: 'create',
  redeliverWebhookDelivery: 'redeliver',
};

const HEADER = (apiVersion) =>
  [
    `// File generated from our OpenAPI document (Slipway API ${apiVersion}) by scripts/generate.mjs. Do not edit:`,
    '// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).',
  ].join('\n');

function fail(message) {
  process.stderr.write(`generate: ${message}\n`);
  process.exit(1);
}

async function loadDocument(source) {
  if (/^https?:\/\//.test(source)) {
    const url = `${source.replace(/\/+$/, '')}/openapi.json`;
    const response = await fetch(url);
    if (!response.ok) fail(`${url} answered ${response.status}`);
    return await response.text();
  }
  return readFileSync(source, 'utf8');
}

const words = (text) => text.split(/[^A-Za-z0-9]+/).filter(Boolean);
const upperFirst = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const camel = (snake) => snake.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const quote = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const pascalOfCode = (code) => code.split('_').map(upperFirst).join('');

/** `API keys` → namespace `apiKeys`, class `APIKeys`. */
function namesOfTag(tag) {
  const parts = words(tag);
  if (parts.length === 0) fail(`tag "${tag}" has no name`);
  const namespace = parts.map((w, i) => (i === 0 ? w.toLowerCase() : upperFirst(w.toLowerCase()))).join('');
  const className = parts.map(upperFirst).join('');
  return { namespace, className, file: namespace };
}

/** `listDeployments` in tag `Deployments` → `list`; `rotateOAuthClientSecret` in `OAuth clients` → `rotateSecret`. */
function methodName(operationId, tag) {
  if (METHOD_NAMES[operationId]) return METHOD_NAMES[operationId];
  const plural = words(tag).join('').toLowerCase();
  const singular = /ies$/.test(plural) ? plural.replace(/ies$/, 'y') : plural.replace(/s$/, ''); // policies → policy
  const lower = operationId.toLowerCase();
  // The noun as whole words: it starts at a capital and ends at the next capital or the end.
  const isWordStart = (i) => i === operationId.length || /[A-Z]/.test(operationId.charAt(i));
  for (const noun of [plural, singular]) {
    for (let at = 1; at < operationId.length; at += 1) {
      if (isWordStart(at) && lower.startsWith(noun, at) && isWordStart(at + noun.length)) {
        const rest = operationId.slice(0, at) + operationId.slice(at + noun.length);
        return rest.charAt(0).toLowerCase() + rest.slice(1);
      }
    }
  }
  fail(`operationId ${operationId} does not name its resource (${tag}): add it to METHOD_NAMES`);
}

/** An object schema with no required field and no minimum count of fields: `{}` is valid. */
function mayBeEmpty(schema, schemas) {
  const resolved = refName(schema) ? schemas[refName(schema)] : schema;
  return resolved?.type === 'object' && !(resolved.required?.length > 0) && !(resolved.minProperties > 0);
}

const refName = (schema) => (schema && typeof schema.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : undefined);

/** JSDoc lines from the operation's summary and description, wrapped at 100 columns. */
function jsdoc(paragraphs, indent) {
  const lines = [];
  for (const [i, paragraph] of paragraphs.entries()) {
    if (i > 0) lines.push('');
    let line = '';
    for (const word of paragraph.replace(/\*\//g, '*\\/').split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > 100 - indent.length - 3) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line) lines.push(line);
  }
  return [`${indent}/**`, ...lines.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)), `${indent} */`].join('\n');
}

function sentence(text) {
  const t = (text ?? '').trim();
  return t && !/[.!?:]$/.test(t) ? `${t}.` : t;
}

/** Every operation of the document, grouped by tag in the document's order. */
function resourcesOf(doc) {
  const schemas = doc.components?.schemas ?? {};
  const byTag = new Map();
  for (const [route, item] of Object.entries(doc.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      if (!op.operationId) fail(`${method.toUpperCase()} ${route} has no operationId`);
      const tag = op.tags?.[0];
      if (!tag) fail(`${op.operationId} has no tag`);
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      if (parameters.some((p) => p.$ref)) fail(`${op.operationId}: $ref parameters are not supported`);
      const pathParams = [...route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const name of pathParams) {
        if (!parameters.some((p) => p.in === 'path' && p.name === name)) fail(`${op.operationId}: path parameter ${name} is not declared`);
      }
      const query = parameters.filter((p) => p.in === 'query');
      const body = op.requestBody?.content?.['application/json'];
      if (op.requestBody && !body) fail(`${op.operationId}: only application/json bodies are supported`);
      if (body && query.length > 0) fail(`${op.operationId}: a body and query parameters together are not supported`);
      const success = Object.entries(op.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
      if (success.length !== 1) fail(`${op.operationId}: expected one success response, got ${success.length}`);
      const [status, response] = success[0];
      const responseSchema = response.content?.['application/json']?.schema;
      const responseName = refName(responseSchema);
      // A page: {data: T[], pagination} (the list operations), iterated lazily by listAll.
      const resolved = responseName ? schemas[responseName] : responseSchema;
      const itemName = resolved?.properties?.data?.type === 'array' && resolved.properties.pagination ? refName(resolved.properties.data.items) : undefined;
      const { namespace, className, file } = namesOfTag(tag);
      if (!byTag.has(tag)) byTag.set(tag, { tag, namespace, className, file, operations: [] });
      byTag.get(tag).operations.push({
        id: op.operationId,
        name: methodName(op.operationId, tag),
        method: method.toUpperCase(),
        route,
        summary: op.summary,
        description: op.description,
        pathParams,
        hasQuery: query.length > 0,
        queryRequired: query.some((p) => p.required),
        // A body whose every field is optional (and that may be empty) defaults to `{}`.
        body: body ? { schema: refName(body.schema), required: op.requestBody.required === true && !mayBeEmpty(body.schema, schemas) } : undefined,
        idempotent: parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
        status: Number(status),
        responseName,
        hasResponseBody: Boolean(responseSchema),
        itemName,
        paged: Boolean(itemName) || Boolean(resolved?.properties?.pagination),
      });
    }
  }
  for (const resource of byTag.values()) {
    const seen = new Set();
    for (const op of resource.operations) {
      const names = op.paged ? [op.name, listAllName(op.name)] : [op.name];
      for (const name of names) {
        if (seen.has(name)) fail(`${resource.namespace}.${name} is made by two operations (${op.id})`);
        seen.add(name);
      }
    }
  }
  return [...byTag.values()];
}

/** `list` → `listAll`, `listDeliveries` → `listAllDeliveries`. */
function listAllName(name) {
  if (!name.startsWith('list')) fail(`paged operation ${name} does not start with "list"`);
  return `listAll${name.slice(4)}`;
}

function resourceFile(resource, apiVersion) {
  const out = [];
  const typeOf = (op, part) => {
    if (part === 'query') return `operations['${op.id}']['parameters']['query']`;
    if (part === 'body') return op.body.schema ? `Schemas['${op.body.schema}']` : `NonNullable<operations['${op.id}']['requestBody']>['content']['application/json']`;
    if (!op.hasResponseBody) return 'void';
    return op.responseName ? `Schemas['${op.responseName}']` : `operations['${op.id}']['responses'][${op.status}]['content']['application/json']`;
  };
  out.push(HEADER(apiVersion), '');
  out.push("import type { RequestOptions } from '../core.js';");
  out.push("import type { components, operations } from '../generated/openapi.js';");
  out.push("import { Resource } from '../resource.js';", '');
  out.push("type Schemas = components['schemas'];", '');
  out.push(jsdoc([`\`slipway.${resource.namespace}\`: the operations tagged "${resource.tag}".`], ''));
  out.push(`export class ${resource.className} extends Resource {`);
  const methods = [];
  for (const op of resource.operations) {
    const args = op.pathParams.map((p) => `${camel(p)}: string`);
    let payload = '';
    if (op.hasQuery) {
      args.push(op.queryRequired ? `params: NonNullable<${typeOf(op, 'query')}>` : `params?: ${typeOf(op, 'query')}`);
      payload = ', query: params';
    } else if (op.body) {
      args.push(op.body.required ? `params: ${typeOf(op, 'body')}` : `params: ${typeOf(op, 'body')} = {}`);
      payload = ', body: params';
    }
    args.push('options?: RequestOptions');
    const spec = `{ method: '${op.method}', path: '${op.route}'${op.pathParams.length ? `, pathParams: [${op.pathParams.map(camel).join(', ')}]` : ''}${payload}${op.idempotent ? ', idempotent: true' : ''} }`;
    const http = `\`${op.method} ${op.route}\`${op.idempotent ? ' (safe to retry: sends an `Idempotency-Key`)' : ''}`;
    methods.push(
      [
        jsdoc([sentence(op.summary), sentence(op.description), http].filter(Boolean), '  '),
        `  ${op.name}(${args.join(', ')}): Promise<${typeOf(op, 'response')}> {`,
        `    return this.call(${spec}, options);`,
        '  }',
      ].join('\n'),
    );
    if (op.paged) {
      const item = op.itemName ? `Schemas['${op.itemName}']` : `${typeOf(op, 'response')}['data'][number]`;
      methods.push(
        [
          jsdoc([`Every item of \`${op.name}\`, page after page: the next page is requested only when the loop reaches it, and leaving the loop stops fetching. Starts at \`params.page\` (default 1).`, http], '  '),
          `  ${listAllName(op.name)}(${args.join(', ')}): AsyncGenerator<${item}, void, undefined> {`,
          `    return this.paginate(${spec}, options);`,
          '  }',
        ].join('\n'),
      );
    }
  }
  out.push(methods.join('\n\n'), '}', '');
  return out.join('\n');
}

function indexFile(resources, apiVersion) {
  const out = [HEADER(apiVersion), ''];
  out.push("import type { ApiClient } from '../core.js';");
  for (const r of resources) out.push(`import { ${r.className} } from './${r.file}.js';`);
  out.push('');
  out.push(`export { ${resources.map((r) => r.className).join(', ')} };`, '');
  out.push(jsdoc(['The flat resource tree, one namespace per resource of the API (child resources take their parent\'s id first).'], ''));
  out.push('export class Resources {');
  for (const r of resources) out.push(`  readonly ${r.namespace}: ${r.className};`);
  out.push('', '  constructor(api: ApiClient) {');
  for (const r of resources) out.push(`    this.${r.namespace} = new ${r.className}(api);`);
  out.push('  }', '}', '');
  return out.join('\n');
}

function metaFile(doc, version) {
  const codes = doc.components?.schemas?.Error?.properties?.error?.properties?.code?.enum;
  if (!Array.isArray(codes) || codes.length === 0) fail('the Error schema has no `code` enum');
  const out = [HEADER(doc.info.version), ''];
  out.push('/** This package\'s version (package.json). */');
  out.push(`export const VERSION = ${quote(version)};`, '');
  out.push('/** The version of the Slipway API this package was generated from (the OpenAPI document\'s `info.version`). */');
  out.push(`export const API_VERSION = ${quote(doc.info.version)};`, '');
  out.push('/** The `code` of every error the server answers with (the `Error` schema). */');
  out.push('export const SERVER_ERROR_CODES = {');
  for (const code of codes) out.push(`  ${pascalOfCode(code)}: ${quote(code)},`);
  out.push('} as const;', '');
  return out.join('\n');
}

async function main() {
  const [source, outArg] = process.argv.slice(2);
  if (!source) fail('usage: node scripts/generate.mjs BASE_URL|openapi.json [OUT_DIR]');
  const outDir = path.resolve(outArg ?? path.join(PACKAGE_DIR, 'src'));
  const text = await loadDocument(source);
  const doc = JSON.parse(text);
  if (!doc.info?.version) fail('the document has no info.version');
  const { version } = JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));

  mkdirSync(path.join(outDir, 'generated'), { recursive: true });
  mkdirSync(path.join(outDir, 'resources'), { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'slipway-openapi-'));
  try {
    const input = path.join(tmp, 'openapi.json');
    writeFileSync(input, text);
    execFileSync(path.join(PACKAGE_DIR, 'node_modules', '.bin', 'openapi-typescript'), [input, '--default-non-nullable', 'false', '--output', path.join(outDir, 'generated', 'openapi.ts')], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const resources = resourcesOf(doc);
  writeFileSync(path.join(outDir, 'generated', 'meta.ts'), metaFile(doc, version));
  for (const resource of resources) writeFileSync(path.join(outDir, 'resources', `${resource.file}.ts`), resourceFile(resource, doc.info.version));
  writeFileSync(path.join(outDir, 'resources', 'index.ts'), indexFile(resources, doc.info.version));
  process.stderr.write(`generated ${resources.length} resources (${resources.map((r) => r.namespace).join(', ')}) from Slipway API ${doc.info.version} into ${outDir}\n`);
}

await main();
