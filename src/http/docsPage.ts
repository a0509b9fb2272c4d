import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { html, join, pageHead, type Html } from '../lib/html.ts';
import { deferredDeletes, documentedOperations, operationExamples, sdkExamples } from './docsExamples.ts';

/**
 * /docs: the OpenAPI document rendered on the server as one HTML page (no scripts: the pages' CSP
 * forbids them, and nothing is loaded from elsewhere). Generated from the same document as
 * /openapi.json, so it cannot disagree with it.
 */

type Schema = SchemaObject | ReferenceObject;

/** Text with its line breaks kept. */
const lines = (text: string): Html => join(text.split('\n'), html`<br>`);

/** One paragraph of a description: `code` spans from backticks. */
const paragraph = (text: string): Html =>
  html`${text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? html`<code>${lines(part)}</code>` : lines(part)))}`;

/** A description: paragraphs at blank lines. */
const prose = (text: string | undefined): Html => html`${(text ?? '').split(/\n{2,}/).map((p) => html`<p>${paragraph(p)}</p>`)}`;

const refName = (ref: string | undefined) => (ref ?? '').split('/').pop()!;
const anchor = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();

function resolve(doc: OpenAPIObject, schema: Schema | undefined): SchemaObject {
  let current = schema;
  for (let i = 0; i < 10 && current && '$ref' in current; i++) current = doc.components?.schemas?.[refName(current.$ref)];
  return (current as SchemaObject | undefined) ?? {};
}

/** A short type label: `string`, `integer`, `Project`, `array of Deployment`, `"a" | "b"`, `… or null`. */
function typeLabel(doc: OpenAPIObject, schema: Schema | undefined): Html {
  if (!schema) return html`any`;
  if ('$ref' in schema) return html`<a href="#schema-${anchor(refName(schema.$ref))}">${refName(schema.$ref)}</a>`;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return join(variants.map((v) => typeLabel(doc, v)), ' or ');
  if (schema.enum) return join(schema.enum.map((v) => html`<code>${JSON.stringify(v)}</code>`), ' | ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length) return html`object`;
  return join(types.map((t) => (t === 'array' ? html`array of ${typeLabel(doc, schema.items as Schema)}` : t)), ' or ');
}

function constraints(schema: SchemaObject): Html[] {
  const parts: (string | Html)[] = [];
  if (schema.minLength !== undefined) parts.push(`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) parts.push(`max length ${schema.maxLength}`);
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.pattern) parts.push(html`pattern <code>${schema.pattern}</code>`);
  if (schema.default !== undefined) parts.push(html`default <code>${JSON.stringify(schema.default)}</code>`);
  return parts.length ? [join(parts, ', ')] : [];
}

function fieldsTable(doc: OpenAPIObject, schema: Schema | undefined): Html {
  const resolved = resolve(doc, schema);
  const props = Object.entries(resolved.properties ?? {});
  if (!props.length) return html`<p>${typeLabel(doc, schema)}</p>`;
  const required = new Set(resolved.required ?? []);
  const rows = props.map(([name, prop]) => {
    const p = resolve(doc, prop);
    const notes = join([...(p.description ? [prose(p.description)] : []), ...constraints(p)], ' ');
    return html`<tr><td><code>${name}</code>${required.has(name) && html` <span class="req">required</span>`}</td><td>${typeLabel(doc, prop)}</td><td>${notes}</td></tr>`;
  });
  return html`<table><thead><tr><th>Field</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function parametersTable(doc: OpenAPIObject, params: (ParameterObject | ReferenceObject)[]): Html {
  if (!params.length) return html``;
  const rows = params.map((raw) => {
    const p = raw as ParameterObject;
    const schema = resolve(doc, p.schema);
    const notes = join([prose(p.description ?? schema.description), ...constraints(schema)], ' ');
    return html`<tr><td><code>${p.name}</code>${p.required && html` <span class="req">required</span>`}</td><td>${p.in}</td><td>${typeLabel(doc, p.schema)}</td><td>${notes}</td></tr>`;
  });
  return html`<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function responsesList(doc: OpenAPIObject, responses: Record<string, ResponseObject | ReferenceObject>): Html[] {
  return Object.entries(responses).map(([status, raw]) => {
    const r = raw as ResponseObject;
    const media = r.content?.['application/json'];
    const examples = Object.entries(media?.examples ?? {}).map(
      ([name, ex]) => html`<details><summary><code>${name}</code></summary><pre>${JSON.stringify((ex as { value?: unknown }).value, null, 2)}</pre></details>`,
    );
    const headers = Object.keys(r.headers ?? {}).filter((h) => !h.startsWith('RateLimit-') && h !== 'X-Request-Id');
    // The description runs on after the status: its first paragraph is not wrapped in <p>.
    const description = join((r.description ?? '').split(/\n{2,}/).map(paragraph), html`</p><p>`);
    return html`<li><span class="status s${status[0]}">${status}</span> ${description}${media?.schema && html` — ${typeLabel(doc, media.schema as Schema)}`}${
      headers.length > 0 && html` <span class="muted">(headers: ${join(headers.map((h) => html`<code>${h}</code>`), ', ')})</span>`
    }${examples}</li>`;
  });
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The generated examples of one operation: the curl command, the body sent, the success response. */
function examplesBlock(doc: OpenAPIObject, method: string, path: string, op: OperationObject): Html {
  const ex = operationExamples(doc, method, path, op);
  return html`<div class="examples">
<h4>Example</h4>
<pre class="example" data-example="curl" aria-label="curl example"><code>${ex.curl}</code></pre>
${ex.request !== undefined && html`<h5>Request body</h5><pre class="example" data-example="request"><code>${json(ex.request)}</code></pre>`}
<h5>Response <span class="status s${ex.response.status[0]}">${ex.response.status}</span></h5>
<pre class="example" data-example="response"><code>HTTP/1.1 ${ex.response.status}${ex.response.body !== undefined && `\nContent-Type: application/json\n\n${json(ex.response.body)}`}</code></pre>
</div>`;
}

function operationSection(doc: OpenAPIObject, method: string, path: string, op: OperationObject): Html {
  const scope = (op as { 'x-required-scope'?: string })['x-required-scope'];
  const body = op.requestBody && 'content' in op.requestBody ? op.requestBody.content['application/json']?.schema : undefined;
  return html`<section class="op" id="${opId(method, path, op)}">
<h3><span class="method m-${method}">${method.toUpperCase()}</span> <code>${path}</code></h3>
<p class="summary">${op.summary}${scope && html` · needs scope <code>${scope}</code>`}</p>
${prose(op.description)}
${parametersTable(doc, op.parameters ?? [])}
${body && html`<h4>Request body <span class="muted">(application/json)</span></h4>${fieldsTable(doc, body as Schema)}`}
<h4>Responses</h4><ul class="responses">${responsesList(doc, (op.responses ?? {}) as Record<string, ResponseObject>)}</ul>
${examplesBlock(doc, method, path, op)}
</section>`;
}

const opId = (method: string, path: string, op: OperationObject) => op.operationId ?? anchor(`${method} ${path}`);

/** The authorization server's issuer, as the document's OAuth 2.0 security scheme names it. */
function issuerOf(doc: OpenAPIObject): string {
  const scheme = doc.components?.securitySchemes?.oauth2 as { flows?: { authorizationCode?: { authorizationUrl?: string } } } | undefined;
  const url = scheme?.flows?.authorizationCode?.authorizationUrl;
  return url ? url.replace(/\/authorize$/, '') : `${doc.servers?.[0]?.url ?? ''}/oauth`;
}

const OAUTH_TOPICS: [string, string][] = [
  ['oauth-discovery', 'Discovery'],
  ['oauth-authorization-code', 'Authorization code + PKCE'],
  ['oauth-openid-connect', 'OpenID Connect sign-in'],
  ['oauth-dpop', 'DPoP-bound tokens'],
  ['oauth-par', 'Pushed authorization requests'],
  ['oauth-device', 'Devices (the CLI)'],
  ['oauth-refresh', 'Refresh'],
  ['oauth-client-credentials', 'Client credentials'],
  ['oauth-revocation', 'Revocation'],
  ['oauth-introspection', 'Introspection'],
];

const block = (text: string) => html`<pre class="example"><code>${text}</code></pre>`;

/**
 * The authorization server's endpoints (oidc-provider at {issuer}): not part of the OpenAPI document
 * (they speak OAuth's form-encoded protocol, not /v1's JSON), so described here with one example each.
 */
function oauthSection(doc: OpenAPIObject): Html {
  const issuer = issuerOf(doc);
  const base = doc.servers?.[0]?.url ?? '';
  const tokenResponse = { access_token: 'eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCJ9…', expires_in: 3600, token_type: 'Bearer', scope: 'read write', refresh_token: 'Qm9yaW5nIGV4YW1wbGUgcmVmcmVzaCB0b2tlbg…' };
  return html`<section id="oauth" aria-labelledby="oauth-title">
<h2 id="oauth-title">OAuth 2.0 and OpenID Connect</h2>
<p>The authorization server's issuer is <code>${issuer}</code>. Applications acting for a user use the authorization code flow with PKCE (S256, required for every client); servers acting for their own account use client credentials. Access tokens are JWTs for the audience <code>${base}/v1</code>, valid 3600 seconds, sent as <code>Authorization: Bearer &lt;token&gt;</code> (or <code>DPoP</code>, for tokens bound to a key). Scopes: <code>read</code> ⊂ <code>write</code> ⊂ <code>admin</code>; <code>openid</code>, <code>profile</code> and <code>email</code> sign the user in (OpenID Connect).</p>

<section class="op" id="oauth-discovery"><h3>Discovery</h3>
<p>Every endpoint below, and what the server supports, in one document (OpenID Connect discovery; also at the RFC 8414 path <code>/.well-known/oauth-authorization-server/oauth</code>). Signing keys are at <code>${issuer}/jwks</code>.</p>
${block(`curl ${issuer}/.well-known/openid-configuration`)}
${block(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, userinfo_endpoint: `${issuer}/userinfo`, end_session_endpoint: `${issuer}/session/end`, pushed_authorization_request_endpoint: `${issuer}/request`, device_authorization_endpoint: `${issuer}/device/auth`, revocation_endpoint: `${issuer}/token/revocation`, introspection_endpoint: `${issuer}/token/introspection`, jwks_uri: `${issuer}/jwks`, code_challenge_methods_supported: ['S256'], grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'], scopes_supported: ['openid', 'offline_access', 'read', 'write', 'admin', 'profile', 'email'], id_token_signing_alg_values_supported: ['RS256'], dpop_signing_alg_values_supported: ['ES256', 'Ed25519', 'EdDSA'] }, null, 2))}
</section>

<section class="op" id="oauth-authorization-code"><h3>Authorization code + PKCE</h3>
<p>1. Make a random <code>code_verifier</code> (43–128 characters) and its <code>code_challenge</code> = BASE64URL(SHA-256(verifier)); send the browser to the authorization endpoint with a random <code>state</code>. Redirect URIs must match a registered one exactly.</p>
${block(`${issuer}/authorize?response_type=code&client_id=$CLIENT_ID&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&scope=read%20write%20offline_access&state=$STATE&code_challenge=$CODE_CHALLENGE&code_challenge_method=S256`)}
<p>2. The user signs in (and consents, once per app). The browser comes back to <code>redirect_uri?code=…&amp;state=…&amp;iss=…</code>: check <code>state</code> and <code>iss</code>, then exchange the code (public clients send <code>client_id</code>; confidential clients authenticate with HTTP Basic instead).</p>
${block(`curl -X POST ${issuer}/token \\
  -d grant_type=authorization_code \\
  -d code=$CODE \\
  -d redirect_uri=https://app.example.com/callback \\
  -d code_verifier=$CODE_VERIFIER \\
  -d client_id=$CLIENT_ID`)}
${block(`HTTP/1.1 200\nContent-Type: application/json\n\n${JSON.stringify(tokenResponse, null, 2)}`)}
</section>

<section class="op" id="oauth-openid-connect"><h3>OpenID Connect sign-in</h3>
<p>To learn <em>who</em> signed in, add <code>openid</code> (and <code>profile</code> for <code>name</code>, <code>email</code> for <code>email</code> and <code>email_verified</code>) to the scope, with a random <code>nonce</code>. The token response then carries an <code>id_token</code> beside the /v1 access token: a JWT signed RS256 with a key from <code>${issuer}/jwks</code>, <code>aud</code> = your client_id, with <code>sub</code> (the user id), <code>nonce</code>, <code>auth_time</code>, <code>at_hash</code> and <code>sid</code>. Check the signature, <code>iss</code>, <code>aud</code>, <code>exp</code> and <code>nonce</code> (any certified OpenID Connect library does). <code>email_verified</code> is always false: Slipway does not verify addresses.</p>
${block(`${issuer}/authorize?response_type=code&client_id=$CLIENT_ID&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&scope=openid%20profile%20email%20read&state=$STATE&nonce=$NONCE&code_challenge=$CODE_CHALLENGE&code_challenge_method=S256`)}
${block(`HTTP/1.1 200
Content-Type: application/json

${JSON.stringify({ ...tokenResponse, scope: 'openid profile email read', id_token: 'eyJhbGciOiJSUzI1NiIsImtpZCI6Ik…' }, null, 2)}`)}
<p>The userinfo endpoint takes the same access token (it carries <code>openid</code>; its audience is <code>${base}/v1</code>, and userinfo accepts that audience):</p>
${block(`curl ${issuer}/userinfo -H "Authorization: Bearer $ACCESS_TOKEN"`)}
${block(`HTTP/1.1 200
Content-Type: application/json

${JSON.stringify({ sub: 'usr_01jd8x0a2b4c6d8e0f2g4h6j8m', name: 'Ada Lovelace', email: 'ada@example.com', email_verified: false }, null, 2)}`)}
<p>Sign-out: send the browser to the <code>end_session_endpoint</code> with the ID token; the user confirms and the Slipway session ends (the next sign-in asks for the password). Tokens already issued stay valid until they expire or are revoked.</p>
${block(`${issuer}/session/end?id_token_hint=$ID_TOKEN`)}
</section>

<section class="op" id="oauth-dpop"><h3>DPoP-bound tokens</h3>
<p>RFC 9449: the app keeps a key pair (ES256, Ed25519 or EdDSA) and sends a <em>proof</em>, a small JWT signed with it, in a <code>DPoP</code> header. A proof at the token endpoint binds the access token to the key (<code>token_type: DPoP</code>, <code>cnf.jkt</code> in the token) and, for public clients, the refresh token too (which is then not rotated on each use): a copied token is useless without the key. Proof header: <code>{"typ":"dpop+jwt","alg":"ES256","jwk":{…public key…}}</code>; claims: <code>jti</code> (unique), <code>iat</code> (now), <code>htm</code> (the method), <code>htu</code> (the URL without query).</p>
${block(`curl -X POST ${issuer}/token \
  -H "DPoP: $PROOF_FOR_POST_TOKEN" \
  -d grant_type=authorization_code -d code=$CODE \
  -d redirect_uri=https://app.example.com/callback \
  -d code_verifier=$CODE_VERIFIER -d client_id=$CLIENT_ID`)}
${block(`HTTP/1.1 200
Content-Type: application/json
DPoP-Nonce: eyJ7S_zG…

${JSON.stringify({ ...tokenResponse, token_type: 'DPoP' }, null, 2)}`)}
<p>On /v1 such a token is sent as <code>Authorization: DPoP &lt;token&gt;</code>, with a new proof for each request that also carries <code>ath</code> = BASE64URL(SHA-256(access token)); <code>htu</code> is <code>${base}</code> + the path. As <code>Bearer</code> it is refused. Refusals are 401 with <code>WWW-Authenticate: DPoP …</code>: <code>invalid_dpop_proof</code> (no proof, another method, URL, token or key, a used <code>jti</code>) or <code>use_dpop_nonce</code>, whose <code>DPoP-Nonce</code> header holds a nonce to put in the next proof's <code>nonce</code> claim. Answers offer the next nonce in <code>DPoP-Nonce</code>; a nonce is good at the token endpoint and /v1 alike for a few minutes. Register the app with <code>dpop_bound_access_tokens: true</code> to make proofs required at the token endpoint.</p>
${block(`curl ${base}/v1/projects \
  -H "Authorization: DPoP $ACCESS_TOKEN" \
  -H "DPoP: $PROOF_FOR_GET_V1_PROJECTS"`)}
${block(`HTTP/1.1 401
WWW-Authenticate: DPoP realm="slipway", algs="ES256 Ed25519 EdDSA", error="use_dpop_nonce", error_description="…"
DPoP-Nonce: eyJ7S_zG…
Content-Type: application/json

${JSON.stringify({ error: { code: 'use_dpop_nonce', message: 'This server requires a DPoP nonce; send the proof again with the nonce from DPoP-Nonce.' } }, null, 2)}`)}
</section>

<section class="op" id="oauth-par"><h3>Pushed authorization requests</h3>
<p>RFC 9126: the app posts the authorization parameters to <code>${issuer}/request</code> first (authenticated as at the token endpoint) and sends the browser with only <code>client_id</code> and the <code>request_uri</code> it got back, valid for a minute and once. Any app may; an app registered with <code>require_pushed_authorization_requests: true</code> must (otherwise <code>invalid_request</code>).</p>
${block(`curl -X POST ${issuer}/request \
  -d client_id=$CLIENT_ID -d response_type=code \
  -d redirect_uri=https://app.example.com/callback \
  -d scope="openid read" -d state=$STATE \
  -d code_challenge=$CODE_CHALLENGE -d code_challenge_method=S256`)}
${block(`HTTP/1.1 201
Content-Type: application/json

${JSON.stringify({ request_uri: 'urn:ietf:params:oauth:request_uri:Ho7Wm2bJ…', expires_in: 60 }, null, 2)}`)}
${block(`${issuer}/authorize?client_id=$CLIENT_ID&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3AHo7Wm2bJ…`)}
</section>

<section class="op" id="oauth-device"><h3>Devices (the CLI)</h3>
<p>RFC 8628, for the first-party CLI (<code>client_id=slipway-cli</code>, DPoP required). The device asks for a code, shows the person <code>verification_uri_complete</code> and the <code>user_code</code> (<code>XXXX-XXXX</code>, 10 minutes), and polls every <code>interval</code> seconds with a DPoP proof. The person opens the link, checks the code, presses Allow and signs in. Until then the poll answers 400 <code>authorization_pending</code>; sooner than the interval, <code>slow_down</code> (wait 5 seconds more from then on); <code>access_denied</code> after Deny; <code>expired_token</code> after 10 minutes. Then the tokens, once: polled again, <code>invalid_grant</code>.</p>
${block(`curl -X POST ${issuer}/device/auth \
  -d client_id=slipway-cli -d scope="read write"`)}
${block(`HTTP/1.1 200
Content-Type: application/json

${JSON.stringify({ device_code: 'Z5hD0Qv7…', user_code: 'WDJB-MJHT', verification_uri: `${issuer}/device`, verification_uri_complete: `${issuer}/device?user_code=WDJB-MJHT`, expires_in: 600, interval: 5 }, null, 2)}`)}
${block(`curl -X POST ${issuer}/token \
  -H "DPoP: $PROOF_FOR_POST_TOKEN" \
  -d grant_type=urn:ietf:params:oauth:grant-type:device_code \
  -d device_code=$DEVICE_CODE -d client_id=slipway-cli`)}
${block(`HTTP/1.1 400
Content-Type: application/json

${JSON.stringify({ error: 'authorization_pending', error_description: 'authorization request is still pending as the end-user hasn\'t yet completed the user interaction steps' }, null, 2)}`)}
</section>

<section class="op" id="oauth-refresh"><h3>Refresh</h3>
<p>A new access token without the user: <code>POST ${issuer}/token</code> with <code>grant_type=refresh_token</code>, <code>refresh_token</code> and <code>client_id</code>. Public clients get a new refresh token each time (unless it is bound to a DPoP key) and must keep only the newest; presenting a used one again revokes the whole grant.</p>
${block(`curl -X POST ${issuer}/token \\
  -d grant_type=refresh_token \\
  -d refresh_token=$REFRESH_TOKEN \\
  -d client_id=$CLIENT_ID`)}
${block(`HTTP/1.1 200\nContent-Type: application/json\n\n${JSON.stringify(tokenResponse, null, 2)}`)}
</section>

<section class="op" id="oauth-client-credentials"><h3>Client credentials</h3>
<p>A confidential client registered with the <code>client_credentials</code> grant gets a token that acts for the account that registered it (no user, no refresh token).</p>
${block(`curl -X POST ${issuer}/token \\
  -u "$CLIENT_ID:$CLIENT_SECRET" \\
  -d grant_type=client_credentials \\
  -d scope=read`)}
${block(`HTTP/1.1 200\nContent-Type: application/json\n\n${JSON.stringify({ access_token: tokenResponse.access_token, expires_in: 3600, token_type: 'Bearer', scope: 'read' }, null, 2)}`)}
</section>

<section class="op" id="oauth-revocation"><h3>Revocation</h3>
<p>RFC 7009: ends a refresh token (and its grant) or an access token. A client may revoke only its own tokens; the answer is 200 with an empty body, also for a token that is unknown or already revoked.</p>
${block(`curl -X POST ${issuer}/token/revocation \\
  -d token=$REFRESH_TOKEN \\
  -d token_type_hint=refresh_token \\
  -d client_id=$CLIENT_ID`)}
${block('HTTP/1.1 200')}
</section>

<section class="op" id="oauth-introspection"><h3>Introspection</h3>
<p>RFC 7662: whether a token is active, for the client it was issued to (HTTP Basic with the client's secret). Anything else answers <code>{"active": false}</code>.</p>
${block(`curl -X POST ${issuer}/token/introspection \\
  -u "$CLIENT_ID:$CLIENT_SECRET" \\
  -d token=$ACCESS_TOKEN`)}
${block(`HTTP/1.1 200\nContent-Type: application/json\n\n${JSON.stringify({ active: true, client_id: 'cli_01jd8z4c8p6r0t2v4x6z8b0d2f', scope: 'read', token_type: 'Bearer', iss: issuer, aud: `${base}/v1`, exp: 1767225600, iat: 1767222000 }, null, 2)}`)}
</section>
</section>`;
}

const SDK_TASKS: [keyof ReturnType<typeof sdkExamples>[number]['tasks'], string][] = [
  ['deployment', 'Create a deployment with an API key'],
  ['login', 'Log a user in with PKCE'],
];

/** The official client libraries (sdk/<language>): the common tasks in each, and where to read on. */
function sdkSection(doc: OpenAPIObject): Html {
  const languages = sdkExamples(doc.servers?.[0]?.url ?? '', issuerOf(doc));
  return html`<section id="client-libraries" aria-labelledby="client-libraries-title">
<h2 id="client-libraries-title">Client libraries</h2>
<p>Official clients for TypeScript, Python and Go wrap every operation below with typed models, API keys and OAuth (PKCE, refresh), lazy pagination, typed errors, and retries that never create twice. Each lives in the repository with a README covering the rest (pagination, errors, retries, webhooks).</p>
${join(
  languages.map(
    (sdk) => html`<section class="op" id="sdk-${sdk.language}"><h3>${sdk.label}</h3>
<p><code>${sdk.install}</code> · README: <code>${sdk.readme}</code></p>
${join(SDK_TASKS.map(([task, title]) => html`<h4>${title}</h4><pre class="example" data-example="sdk" data-language="${sdk.language}" data-task="${task}"><code>${sdk.tasks[task]}</code></pre>`), '\n')}
</section>`,
  ),
  '\n',
)}
</section>`;
}

export function renderDocsPage(doc: OpenAPIObject): string {
  const byTag = new Map<string, Html[]>();
  const toc = new Map<string, Html[]>();
  const shown = documentedOperations(doc);
  for (const { method, path, op } of shown) {
    const tag = op.tags?.[0] ?? 'Other';
    byTag.set(tag, [...(byTag.get(tag) ?? []), operationSection(doc, method, path, op)]);
    toc.set(tag, [...(toc.get(tag) ?? []), html`<li><a href="#${opId(method, path, op)}"><span class="method m-${method}">${method.toUpperCase()}</span> ${path}</a></li>`]);
  }
  const base = doc.servers?.[0]?.url ?? '';
  const last = deferredDeletes(shown).map(({ method, path, op }) => html`<a href="#${opId(method, path, op)}"><code>${method.toUpperCase()} ${path}</code></a>`);
  const schemas = Object.entries(doc.components?.schemas ?? {}).map(
    ([name, schema]) => html`<section class="schema" id="schema-${anchor(name)}"><h3>${name}</h3>${prose((schema as SchemaObject).description)}${fieldsTable(doc, schema)}</section>`,
  );
  return html`${pageHead({ title: `${doc.info.title} ${doc.info.version}`, stylesheets: ['/docs/docs.css'] })}
<body>
<a class="skip-link" href="#main">Skip to content</a>
<nav aria-label="Contents">
<p class="brand">Slipway API</p>
<p><a href="/openapi.json">openapi.json</a> (OpenAPI ${doc.openapi})</p>
<h2><a href="#authentication">Authentication</a></h2>
<h2><a href="#oauth">OAuth 2.0</a></h2>
<ul>${OAUTH_TOPICS.map(([id, label]) => html`<li><a href="#${id}">${label}</a></li>`)}</ul>
<h2><a href="#client-libraries">Client libraries</a></h2>
<ul><li><a href="#sdk-typescript">TypeScript</a></li><li><a href="#sdk-python">Python</a></li><li><a href="#sdk-go">Go</a></li></ul>
${[...toc].map(([tag, items]) => html`<h2><a href="#tag-${anchor(tag)}">${tag}</a></h2><ul>${items}</ul>`)}
<h2><a href="#schemas">Schemas</a></h2>
</nav>
<main id="main">
<h1>${doc.info.title} <span class="muted">v${doc.info.version}</span></h1>
${prose(doc.info.description)}
<h2 id="authentication">Authentication</h2>
<p>Send <code>Authorization: Bearer &lt;token&gt;</code> with an OAuth 2.0 access token, an API key (<code>slw_…</code>) or a session token (<code>slws_…</code>). Missing → <code>401 unauthorized</code>; invalid, expired or revoked → <code>401 invalid_token</code>.</p>
<p>The examples below are one script for a POSIX shell, using only <code>curl</code>, <code>sed</code>, <code>od</code> and <code>tr</code>: run them top to bottom in one shell. An example that creates something keeps its new id in a shell variable (<code>PROJECT_ID</code>, <code>DEPLOYMENT_ID</code>, …) that the examples after it use${last.length > 0 && html`. One exception to the order: run ${join(last, ', ')} at the very end, since it deletes what the examples after it use`}. Set <code>TOKEN</code> first: an admin's access token. An app gets one for a user with the authorization code flow (<a href="#oauth-authorization-code">below</a>); from a terminal, a confidential client of your account gets one with client credentials (it may do everything below but <code>/v1/users/me</code> and the password change, which need a user):</p>
${block(`# once, on the server: npx slipway clients create --name "API examples" --confidential --grant client_credentials --scope "read write admin" --json
CLIENT_ID=cli_…        # the client_id it printed
CLIENT_SECRET=slwcs_…  # the client_secret it printed (shown once)
TOKEN=$(curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials -d scope="read write admin" ${issuerOf(doc)}/token | sed -n 's/.*"access_token":"\\([^"]*\\)".*/\\1/p')
curl -s -H "Authorization: Bearer $TOKEN" ${base}/v1/projects`)}
${oauthSection(doc)}
${sdkSection(doc)}
${[...byTag].map(([tag, ops]) => html`<h2 class="tag" id="tag-${anchor(tag)}">${tag}</h2>${ops}`)}
<h2 id="schemas">Schemas</h2>
${schemas}
</main>
</body>
</html>`.value;
}
