import { sample } from 'openapi-sampler';
import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';

/**
 * Examples for every operation of the OpenAPI document, made once from its schemas and stored in the
 * document (addExamples), where /docs reads them back (openapi-sampler: a
 * schema's own `example`, else one built from its type, format, enum and bounds). Nothing is written by
 * hand per operation, so a new route or a changed schema gets matching examples on its own.
 */
export interface OperationExamples {
  /** The path with its parameters filled in, and any required query parameters. */
  url: string;
  /** The JSON body to send, when the operation takes one. */
  request?: unknown;
  /** The success response: its status and, unless it has none (204), its body. */
  response: { status: string; description: string; body?: unknown };
  /**
   * The curl command, written to run as one shell script with the examples before it on /docs (POSIX
   * sh, curl, sed, od and tr only): path parameters are shell variables (`$PROJECT_ID`) that an earlier
   * example set from its answer, and an example that creates something sets its variable the same way.
   */
  curl: string;
  /** The shell variable this example sets from its answer (`PROJECT_ID`), if any. */
  sets?: string;
}

type Schema = SchemaObject | ReferenceObject;

/** A sample for `schema`, resolving `$ref`s against the document. */
function sampleOf(doc: OpenAPIObject, schema: Schema, options: { request: boolean }): unknown {
  return sample(withoutConditionals(resolved(doc, schema)) as never, { skipReadOnly: options.request, skipWriteOnly: !options.request, quiet: true }, doc);
}

/** A top-level `$ref` to a component, replaced by that component (nested references stay for the sampler). */
function resolved(doc: OpenAPIObject, schema: Schema): Schema {
  const ref = schema && typeof schema === 'object' && '$ref' in schema ? schema.$ref : undefined;
  const name = ref?.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined;
  return (name && doc.components?.schemas?.[name]) || schema;
}

/**
 * The schema without its `if`/`then`/`else` rules (e.g. "client_credentials needs a confidential
 * client"): openapi-sampler merges both branches into the properties and samples nonsense from them,
 * while the plain properties already make a valid example.
 */
function withoutConditionals(schema: Schema): Schema {
  if (!schema || typeof schema !== 'object' || !('allOf' in schema) || !Array.isArray(schema.allOf)) return schema;
  const allOf = schema.allOf.filter((part) => !(part && typeof part === 'object' && 'if' in part));
  const { allOf: _dropped, ...rest } = schema;
  return (allOf.length ? { ...rest, allOf } : rest) as Schema;
}

/** Single-quoted for a POSIX shell. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function parameterValue(doc: OpenAPIObject, parameter: ParameterObject): string {
  if (parameter.example !== undefined) return String(parameter.example);
  const value = parameter.schema ? sampleOf(doc, parameter.schema, { request: true }) : 'value';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The `example` of every named property anywhere in the document (the first one found per name). */
const knownExamples = new WeakMap<OpenAPIObject, Map<string, unknown>>();
function examplesByName(doc: OpenAPIObject): Map<string, unknown> {
  let found = knownExamples.get(doc);
  if (found) return found;
  found = new Map();
  const seen = new Set<unknown>();
  const walk = (node: unknown, depth: number) => {
    if (!node || typeof node !== 'object' || depth > 40 || seen.has(node)) return;
    seen.add(node);
    const properties = (node as { properties?: Record<string, { example?: unknown; examples?: unknown[] }> }).properties;
    if (properties && typeof properties === 'object')
      for (const [name, prop] of Object.entries(properties)) {
        const example = prop?.example ?? prop?.examples?.[0];
        // `id` means something else in every object: never borrowed.
        if (example !== undefined && name !== 'id' && !found!.has(name)) found!.set(name, example);
      }
    for (const child of Object.values(node)) walk(child, depth + 1);
  };
  walk(doc, 0);
  knownExamples.set(doc, found);
  return found;
}

/**
 * openapi-sampler's placeholder for a string without an example is "string". A field of the same name
 * has an example elsewhere in the document more often than not (a response's `name` beside the request's
 * `name`), so that value is used; a list's pagination is made to agree with its data.
 */
function polish(doc: OpenAPIObject, value: unknown): unknown {
  const known = examplesByName(doc);
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(node)) {
      const better = known.get(key);
      const placeholderList = Array.isArray(v) && v.length > 0 && v.every((x) => x === 'string') && Array.isArray(better);
      out[key] = (v === 'string' && typeof better === 'string') || placeholderList ? better : visit(v);
    }
    if (Array.isArray(out.data) && out.pagination && typeof out.pagination === 'object')
      out.pagination = { ...out.pagination, page: 1, per_page: 20, total: out.data.length };
    return out;
  };
  return visit(value);
}

/** The `example` of a request or response body media object, when the document carries one. */
function mediaExample(media: { example?: unknown } | undefined): { value: unknown } | undefined {
  return media && 'example' in media ? { value: media.example } : undefined;
}

/**
 * Puts the generated examples into the document itself: every operation's JSON request body and success
 * response gets an `example` (what Redoc, Swagger UI and Postman show), the same one /docs shows, which
 * reads it back from here (operationExamples). Error responses already carry one example per code.
 */
export function addExamples(doc: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, OperationObject>)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const ex = operationExamples(doc, method, path, op);
      const requestMedia = op.requestBody && 'content' in op.requestBody ? op.requestBody.content['application/json'] : undefined;
      if (requestMedia && ex.request !== undefined) requestMedia.example = ex.request;
      const responseMedia = (op.responses as Record<string, ResponseObject>)[ex.response.status]?.content?.['application/json'];
      if (responseMedia && ex.response.body !== undefined) responseMedia.example = ex.response.body;
    }
  }
  return doc;
}

export function operationExamples(doc: OpenAPIObject, method: string, path: string, op: OperationObject): OperationExamples {
  const base = doc.servers?.[0]?.url ?? '';
  const parameters = (op.parameters ?? []) as ParameterObject[];
  let filled = path;
  for (const p of parameters.filter((x) => x.in === 'path')) filled = filled.replace(`{${p.name}}`, encodeURIComponent(parameterValue(doc, p)));
  const query = new URLSearchParams(parameters.filter((p) => p.in === 'query' && p.required).map((p): [string, string] => [p.name, parameterValue(doc, p)]));
  const url = `${filled}${query.size ? `?${query}` : ''}`;

  const requestMedia = op.requestBody && 'content' in op.requestBody ? op.requestBody.content['application/json'] : undefined;
  const bodySchema = requestMedia?.schema;
  const request = mediaExample(requestMedia)?.value ?? (bodySchema ? polish(doc, sampleOf(doc, bodySchema, { request: true })) : undefined);

  const responses = (op.responses ?? {}) as Record<string, ResponseObject>;
  const status = Object.keys(responses).find((s) => s.startsWith('2')) ?? Object.keys(responses)[0] ?? '200';
  const success = responses[status];
  const responseMedia = status === '204' ? undefined : success?.content?.['application/json'];
  const responseSchema = responseMedia?.schema;
  const body = mediaExample(responseMedia)?.value ?? (responseSchema ? polish(doc, sampleOf(doc, responseSchema, { request: false })) : undefined);
  const response = { status, description: success?.description ?? '', ...(body !== undefined ? { body } : {}) };

  const secured = (op.security ?? doc.security ?? []).length > 0;
  const idempotent = parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  let shellUrl = path;
  for (const p of parameters.filter((x) => x.in === 'path')) shellUrl = shellUrl.replace(`{${p.name}}`, `$${shellVariable(p.name)}`);
  const lines = [`curl -s -X ${method.toUpperCase()} "${base}${shellUrl}${query.size ? `?${query}` : ''}"`];
  if (secured) lines.push('-H "Authorization: Bearer $TOKEN"');
  if (request !== undefined) lines.push('-H "Content-Type: application/json"');
  // A new random key per run, from POSIX tools (uuidgen is missing on many machines).
  if (idempotent) lines.push(`-H "Idempotency-Key: $(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')"`);
  if (request !== undefined) lines.push(`-d ${shellQuote(JSON.stringify(request))}`);
  const command = lines.join(' \\\n  ');
  const captured = capture(doc, method, path, body);
  const curl = captured
    ? `ANSWER=$(${command})\nprintf '%s\\n' "$ANSWER"\n${captured.variable}=$(printf '%s\\n' "$ANSWER" | sed -n '${captured.sed}')`
    : command;
  return { url, ...(request !== undefined ? { request } : {}), response, curl, ...(captured ? { sets: captured.variable } : {}) };
}

/** `project_id` → `PROJECT_ID`: the shell variable of a path parameter. */
export const shellVariable = (parameter: string) => parameter.toUpperCase().replace(/[^A-Z0-9]+/g, '_');

/**
 * What an example keeps from its answer for the examples after it: a create (POST to a collection that
 * has an item path `{collection}/{x}`) keeps the new id as `$X`; a list of things that are not created
 * through the API (webhook deliveries) keeps its first item's id. The id is the answer's first field
 * (`{"id":"…"` or `{"client_id":"…"`), read with sed.
 */
function capture(doc: OpenAPIObject, method: string, path: string, body: unknown): { variable: string; sed: string } | undefined {
  const child = Object.keys(doc.paths ?? {})
    .map((p) => new RegExp(`^${path.replace(/[.*+?^$(){}|[\]\\]/g, '\\$&')}/\\{([a-z_]+)\\}(/|$)`).exec(p)?.[1])
    .find(Boolean);
  if (!child || !body || typeof body !== 'object') return undefined;
  const created = method === 'post';
  const listed = method === 'get' && !(doc.paths?.[path] as Record<string, unknown> | undefined)?.post && Array.isArray((body as { data?: unknown }).data);
  if (!created && !listed) return undefined;
  const first = created ? body : ((body as { data: unknown[] }).data[0] ?? {});
  const field = Object.keys(first as object)[0];
  if (field !== 'id' && field !== child) return undefined;
  const prefix = created ? '^{' : '^{"data":\\[{';
  return { variable: shellVariable(child), sed: `s/${prefix}"${field}":"\\([^"]*\\)".*/\\1/p` };
}

/** One operation of the document, in the order /docs shows it. */
export interface DocumentedOperation {
  method: string;
  path: string;
  op: OperationObject;
}

const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * The operations in the order /docs shows them, which is the order the examples run in: by tag as the
 * document has them, and within a tag the create first (it sets the id the others use), then the list,
 * reads, changes and actions, and the DELETE last.
 */
export function documentedOperations(doc: OpenAPIObject): DocumentedOperation[] {
  const all: (DocumentedOperation & { tag: string; index: number })[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const method of METHOD_ORDER) {
      const op = (item as Record<string, OperationObject | undefined>)[method];
      if (op) all.push({ method, path, op, tag: op.tags?.[0] ?? 'Other', index: all.length });
    }
  const tags = [...new Set(all.map((o) => o.tag))];
  const rank = ({ method, path }: DocumentedOperation) => {
    const collection = Object.keys(doc.paths ?? {}).some((p) => p.startsWith(`${path}/{`));
    const created = collection && Boolean((doc.paths?.[path] as Record<string, unknown> | undefined)?.post);
    if (method === 'post' && collection) return 0;
    // A list of what the API creates comes right after the create; one of what the server makes
    // itself (webhook deliveries) stays among the actions, after the one that makes it (a ping).
    if (method === 'get' && created) return 1;
    if (method === 'get' && !collection) return 2;
    if (method === 'patch' || method === 'put') return 3;
    if (method === 'delete') return 9;
    return 4;
  };
  return all.sort((a, b) => tags.indexOf(a.tag) - tags.indexOf(b.tag) || rank(a) - rank(b) || a.index - b.index);
}

/**
 * The examples as one script, in the order they run: the order of /docs, except that a DELETE whose
 * resource holds what later examples use (a project: its deployments, configurations, keys) runs last.
 */
export function exampleSequence(doc: OpenAPIObject): DocumentedOperation[] {
  const shown = documentedOperations(doc);
  const deferred = deferredDeletes(shown);
  return [...shown.filter((o) => !deferred.includes(o)), ...deferred.reverse()];
}

/** DELETEs shown before an operation on something inside what they delete. */
export function deferredDeletes(shown: DocumentedOperation[]): DocumentedOperation[] {
  return shown.filter((o, i) => o.method === 'delete' && shown.slice(i + 1).some((later) => later.path.startsWith(`${o.path}/`)));
}

/** A common task, shown in each official client library on /docs (`sdk/<language>`). */
export interface SdkExample {
  language: 'typescript' | 'python' | 'go';
  label: string;
  /** The package, as a reader installs it from a checkout of this repository (none is published to a registry yet). */
  install: string;
  /** Where the library's README lives in the repository (everything else it does). */
  readme: string;
  /** `deployment`: create a deployment with an API key; `login`: log a user in with PKCE. */
  tasks: { deployment: string; login: string };
}

/**
 * The client libraries' snippets for /docs, written against each SDK's real API (every SDK's suite
 * fetches /docs from a live server and typechecks or compiles these snippets, so a renamed method
 * fails there). `baseUrl` is where Slipway runs, `issuer` its authorization server.
 */
export function sdkExamples(baseUrl: string, issuer: string): SdkExample[] {
  const redirectUri = 'http://127.0.0.1:53682/callback';
  return [
    {
      language: 'typescript',
      label: 'TypeScript / JavaScript',
      install: 'npm install /path/to/slipway/sdk/typescript',
      readme: 'sdk/typescript/README.md',
      tasks: {
        deployment: `import { Slipway } from '@slipway/sdk';

const slipway = new Slipway({ baseUrl: '${baseUrl}', apiKey: process.env.SLIPWAY_API_KEY });
// Retried safely: every create carries a generated Idempotency-Key.
const deployment = await slipway.deployments.create('proj_…', { environment: 'production', branch: 'main' });
await slipway.deployments.update('proj_…', deployment.id, { status: 'building' });`,
        login: `import { Slipway, SlipwayOAuth } from '@slipway/sdk';

const oauth = new SlipwayOAuth({ baseUrl: '${baseUrl}', clientId: 'cli_…', redirectUri: '${redirectUri}' });
// 1. Send the browser to url; keep state and codeVerifier until it comes back.
const { url, state, codeVerifier } = await oauth.authorizationUrl({ scope: 'read write' });
// 2. On the redirect URI: check the callback and exchange the code.
const tokens = await oauth.exchangeCode(callbackUrl, { state, codeVerifier });
// 3. Call the API as the user; the session refreshes the access token itself.
const slipway = new Slipway({ baseUrl: '${baseUrl}', auth: oauth.session(tokens) });
console.log(url, (await slipway.users.me()).email);`,
      },
    },
    {
      language: 'python',
      label: 'Python',
      install: 'pip install /path/to/slipway/sdk/python',
      readme: 'sdk/python/README.md',
      tasks: {
        deployment: `import os

from slipway import Slipway

client = Slipway(base_url="${baseUrl}", api_key=os.environ["SLIPWAY_API_KEY"])
# Retried safely: every create carries a generated Idempotency-Key.
deployment = client.deployments.create("proj_...", environment="production", branch="main")
client.deployments.update("proj_...", deployment.id, status="building")`,
        login: `from slipway import OAuth, Slipway

oauth = OAuth("${issuer}", "cli_...", redirect_uri="${redirectUri}")
# 1. Send the browser to request.url; keep request.state and request.code_verifier until it comes back.
request = oauth.authorization_url(scope="read write")
# 2. On the redirect URI: check the callback and exchange the code.
oauth.exchange_code(callback_url, state=request.state, code_verifier=request.code_verifier)
# 3. Call the API as the user; the client refreshes the access token itself.
client = Slipway(base_url="${baseUrl}", oauth=oauth)
print(client.users.me().email)`,
      },
    },
    {
      language: 'go',
      label: 'Go',
      install: 'go mod edit -replace slipway.dev/sdk/go=/path/to/slipway/sdk/go && go mod tidy',
      readme: 'sdk/go/README.md',
      tasks: {
        deployment: `client, err := slipway.NewClient("${baseUrl}", slipway.WithAPIKey(os.Getenv("SLIPWAY_API_KEY")))
if err != nil {
	log.Fatal(err)
}
// Retried safely: every create carries a generated Idempotency-Key.
d, err := client.Deployments.Create(ctx, "proj_...", slipway.CreateDeployment{Environment: "production", Branch: "main"})
if err != nil {
	log.Fatal(err)
}
fmt.Println(d.ID, d.Status)`,
        login: `cfg := slipway.OAuthConfig("${issuer}", "cli_...", "", "${redirectUri}", "read", "write")
// 1. Send the browser to req.URL; keep req.State and req.Verifier until it comes back.
req := slipway.NewAuthorizationRequest(cfg)
// 2. On the redirect URI: check the callback and exchange the code.
tok, err := slipway.Exchange(ctx, cfg, req, callbackURL)
if err != nil {
	log.Fatal(err)
}
// 3. Call the API as the user; the token source refreshes the access token itself.
client, err := slipway.NewClient("${baseUrl}", slipway.WithTokenSource(slipway.OAuthTokenSource(ctx, cfg, tok)))
if err != nil {
	log.Fatal(err)
}
me, err := client.Users.Me(ctx)
if err != nil {
	log.Fatal(err)
}
fmt.Println(me.Email)`,
      },
    },
  ];
}
