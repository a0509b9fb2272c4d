import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { escape, pageHead } from '../oauth/views.ts';

/**
 * /docs: the OpenAPI document rendered on the server as one HTML page (no scripts: the pages' CSP
 * forbids them, and nothing is loaded from elsewhere). Generated from the same document as
 * /openapi.json, so it cannot disagree with it.
 */

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Schema = SchemaObject | ReferenceObject;

/** `code` spans from backticks; everything else escaped. */
const prose = (text: string | undefined): string =>
  escape(text ?? '')
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, '<br>')}</p>`)
    .join('');

const refName = (ref: string | undefined) => (ref ?? '').split('/').pop()!;
const anchor = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();

function resolve(doc: OpenAPIObject, schema: Schema | undefined): SchemaObject {
  let current = schema;
  for (let i = 0; i < 10 && current && '$ref' in current; i++) current = doc.components?.schemas?.[refName(current.$ref)];
  return (current as SchemaObject | undefined) ?? {};
}

/** A short type label: `string`, `integer`, `Project`, `array of Deployment`, `"a" | "b"`, `… or null`. */
function typeLabel(doc: OpenAPIObject, schema: Schema | undefined): string {
  if (!schema) return 'any';
  if ('$ref' in schema) return `<a href="#schema-${anchor(refName(schema.$ref))}">${escape(refName(schema.$ref))}</a>`;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map((v) => typeLabel(doc, v)).join(' or ');
  if (schema.enum) return schema.enum.map((v) => `<code>${escape(JSON.stringify(v))}</code>`).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  return types
    .map((t) => (t === 'array' ? `array of ${typeLabel(doc, schema.items as Schema)}` : escape(t)))
    .join(' or ') || 'object';
}

function constraints(schema: SchemaObject): string {
  const parts: string[] = [];
  if (schema.minLength !== undefined) parts.push(`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) parts.push(`max length ${schema.maxLength}`);
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.pattern) parts.push(`pattern <code>${escape(schema.pattern)}</code>`);
  if (schema.default !== undefined) parts.push(`default <code>${escape(JSON.stringify(schema.default))}</code>`);
  return parts.join(', ');
}

function fieldsTable(doc: OpenAPIObject, schema: Schema | undefined): string {
  const resolved = resolve(doc, schema);
  const props = Object.entries(resolved.properties ?? {});
  if (!props.length) return `<p>${typeLabel(doc, schema)}</p>`;
  const required = new Set(resolved.required ?? []);
  const rows = props
    .map(([name, prop]) => {
      const p = resolve(doc, prop);
      const notes = [p.description ? prose(p.description) : '', constraints(p)].filter(Boolean).join(' ');
      return `<tr><td><code>${escape(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${typeLabel(doc, prop)}</td><td>${notes}</td></tr>`;
    })
    .join('');
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function parametersTable(doc: OpenAPIObject, params: (ParameterObject | ReferenceObject)[]): string {
  if (!params.length) return '';
  const rows = params
    .map((raw) => {
      const p = raw as ParameterObject;
      const schema = resolve(doc, p.schema);
      const notes = [prose(p.description ?? schema.description), constraints(schema)].filter(Boolean).join(' ');
      return `<tr><td><code>${escape(p.name)}</code>${p.required ? ' <span class="req">required</span>' : ''}</td><td>${escape(p.in)}</td><td>${typeLabel(doc, p.schema)}</td><td>${notes}</td></tr>`;
    })
    .join('');
  return `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function responsesList(doc: OpenAPIObject, responses: Record<string, ResponseObject | ReferenceObject>): string {
  return Object.entries(responses)
    .map(([status, raw]) => {
      const r = raw as ResponseObject;
      const media = r.content?.['application/json'];
      const examples = Object.entries(media?.examples ?? {})
        .map(([name, ex]) => `<details><summary><code>${escape(name)}</code></summary><pre>${escape(JSON.stringify((ex as { value?: unknown }).value, null, 2))}</pre></details>`)
        .join('');
      const headers = Object.keys(r.headers ?? {}).filter((h) => !h.startsWith('RateLimit-') && h !== 'X-Request-Id');
      return `<li><span class="status s${escape(status[0])}">${escape(status)}</span> ${prose(r.description).replace(/^<p>|<\/p>$/g, '')}${
        media?.schema ? ` — ${typeLabel(doc, media.schema as Schema)}` : ''
      }${headers.length ? ` <span class="muted">(headers: ${headers.map((h) => `<code>${escape(h)}</code>`).join(', ')})</span>` : ''}${examples}</li>`;
    })
    .join('');
}

function operationSection(doc: OpenAPIObject, method: string, path: string, op: OperationObject): string {
  const scope = (op as { 'x-required-scope'?: string })['x-required-scope'];
  const body = op.requestBody && 'content' in op.requestBody ? op.requestBody.content['application/json']?.schema : undefined;
  return `<section class="op" id="${escape(op.operationId ?? anchor(`${method} ${path}`))}">
<h3><span class="method m-${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p class="summary">${escape(op.summary)}${scope ? ` · needs scope <code>${escape(scope)}</code>` : ''}</p>
${prose(op.description)}
${parametersTable(doc, op.parameters ?? [])}
${body ? `<h4>Request body <span class="muted">(application/json)</span></h4>${fieldsTable(doc, body as Schema)}` : ''}
<h4>Responses</h4><ul class="responses">${responsesList(doc, (op.responses ?? {}) as Record<string, ResponseObject>)}</ul>
</section>`;
}

export function renderDocsPage(doc: OpenAPIObject): string {
  const byTag = new Map<string, string[]>();
  const toc = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as OperationObject | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationSection(doc, method, path, op)]);
      toc.set(tag, [...(toc.get(tag) ?? []), `<li><a href="#${escape(op.operationId ?? '')}"><span class="method m-${method}">${method.toUpperCase()}</span> ${escape(path)}</a></li>`]);
    }
  }
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .map(([name, schema]) => `<section class="schema" id="schema-${anchor(name)}"><h3>${escape(name)}</h3>${prose((schema as SchemaObject).description)}${fieldsTable(doc, schema)}</section>`)
    .join('');
  return `${pageHead(`${doc.info.title} ${doc.info.version}`, '/docs/docs.css')}
<body>
<nav>
<p class="brand">Slipway API</p>
<p><a href="/openapi.json">openapi.json</a> (OpenAPI ${escape(doc.openapi)})</p>
${[...toc].map(([tag, items]) => `<h2>${escape(tag)}</h2><ul>${items.join('')}</ul>`).join('')}
<h2><a href="#schemas">Schemas</a></h2>
</nav>
<main>
<h1>${escape(doc.info.title)} <span class="muted">v${escape(doc.info.version)}</span></h1>
${prose(doc.info.description)}
<h2>Authentication</h2>
<p>Send <code>Authorization: Bearer &lt;token&gt;</code> with an OAuth 2.0 access token, an API key (<code>slw_…</code>) or a session token (<code>slws_…</code>). Missing → <code>401 unauthorized</code>; invalid, expired or revoked → <code>401 invalid_token</code>.</p>
<pre>curl -H "Authorization: Bearer $TOKEN" ${escape(doc.servers?.[0]?.url ?? '')}/v1/projects</pre>
${[...byTag].map(([tag, ops]) => `<h2 class="tag">${escape(tag)}</h2>${ops.join('')}`).join('')}
<h2 id="schemas">Schemas</h2>
${schemas}
</main>
</body>
</html>`;
}

export const DOCS_STYLESHEET = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#f5f6f8;--card:#fff;--muted:#5b6470;--accent:#1f5fd1;--border:#d0d5dd;--code:#eef1f5}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#111418;--card:#1a1f25;--muted:#9aa4b0;--accent:#6ea1ff;--border:#353c45;--code:#222a33}}
*{box-sizing:border-box}body{margin:0;display:flex;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
nav{position:sticky;top:0;align-self:flex-start;width:19rem;height:100vh;overflow:auto;padding:1rem;border-right:1px solid var(--border);background:var(--card)}
nav ul{list-style:none;padding:0;margin:0 0 1rem}nav li{margin:.2rem 0;font-size:.85rem;overflow-wrap:anywhere}nav h2{font-size:.95rem;margin:1rem 0 .3rem}
main{flex:1;max-width:60rem;padding:1rem 2rem 4rem}a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
.brand{font-weight:700;color:var(--accent);margin:0 0 .5rem}.muted{color:var(--muted);font-weight:400}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;background:var(--code);border-radius:.25rem}code{padding:.05rem .3rem}
pre{padding:.75rem;overflow:auto}h2.tag{margin-top:2.5rem;border-bottom:1px solid var(--border)}
.op,.schema{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:.5rem 1.25rem 1rem;margin:1rem 0}
.op h3{font-size:1.05rem}.summary{font-weight:600}
.method{display:inline-block;min-width:3.6rem;text-align:center;font-size:.72rem;font-weight:700;padding:.1rem .35rem;border-radius:.25rem;color:#fff;background:#667085}
.m-get{background:#1f7a4d}.m-post{background:#1f5fd1}.m-patch{background:#a15c07}.m-put{background:#7a3fb0}.m-delete{background:#b42318}
table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:.9rem}th,td{border:1px solid var(--border);padding:.35rem .5rem;text-align:left;vertical-align:top}td p{margin:0}
.req{font-size:.72rem;color:#b42318}ul.responses{padding-left:1rem}ul.responses li{margin:.4rem 0}
.status{display:inline-block;font-weight:700;font-family:ui-monospace,monospace}.s2{color:#1f7a4d}.s4{color:#a15c07}.s5{color:#b42318}
details{margin:.2rem 0 .2rem 1rem}summary{cursor:pointer}`;
