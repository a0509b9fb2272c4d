import { sample } from 'openapi-sampler';
import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';

/**
 * Examples for every operation of the OpenAPI document, made from its schemas (openapi-sampler: a
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
  curl: string;
}

type Schema = SchemaObject | ReferenceObject;

/** A sample for `schema`, resolving `$ref`s against the document. */
function sampleOf(doc: OpenAPIObject, schema: Schema, options: { request: boolean }): unknown {
  return sample(schema as never, { skipReadOnly: options.request, skipWriteOnly: !options.request, quiet: true }, doc);
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
      out[key] = v === 'string' && typeof better === 'string' ? better : visit(v);
    }
    if (Array.isArray(out.data) && out.pagination && typeof out.pagination === 'object')
      out.pagination = { ...out.pagination, page: 1, per_page: 20, total: out.data.length };
    return out;
  };
  return visit(value);
}

export function operationExamples(doc: OpenAPIObject, method: string, path: string, op: OperationObject): OperationExamples {
  const base = doc.servers?.[0]?.url ?? '';
  const parameters = (op.parameters ?? []) as ParameterObject[];
  let filled = path;
  for (const p of parameters.filter((x) => x.in === 'path')) filled = filled.replace(`{${p.name}}`, encodeURIComponent(parameterValue(doc, p)));
  const query = new URLSearchParams(parameters.filter((p) => p.in === 'query' && p.required).map((p): [string, string] => [p.name, parameterValue(doc, p)]));
  const url = `${filled}${query.size ? `?${query}` : ''}`;

  const bodySchema = op.requestBody && 'content' in op.requestBody ? op.requestBody.content['application/json']?.schema : undefined;
  const request = bodySchema ? polish(doc, sampleOf(doc, bodySchema, { request: true })) : undefined;

  const responses = (op.responses ?? {}) as Record<string, ResponseObject>;
  const status = Object.keys(responses).find((s) => s.startsWith('2')) ?? Object.keys(responses)[0] ?? '200';
  const success = responses[status];
  const responseSchema = status === '204' ? undefined : success?.content?.['application/json']?.schema;
  const response = { status, description: success?.description ?? '', ...(responseSchema ? { body: polish(doc, sampleOf(doc, responseSchema, { request: false })) } : {}) };

  const secured = (op.security ?? doc.security ?? []).length > 0;
  const idempotent = parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  const lines = [`curl -X ${method.toUpperCase()} "${base}${url}"`];
  if (secured) lines.push('-H "Authorization: Bearer $TOKEN"');
  if (request !== undefined) lines.push('-H "Content-Type: application/json"');
  if (idempotent) lines.push('-H "Idempotency-Key: $(uuidgen)"');
  if (request !== undefined) lines.push(`-d ${shellQuote(JSON.stringify(request))}`);
  return { url, ...(request !== undefined ? { request } : {}), response, curl: lines.join(' \\\n  ') };
}
