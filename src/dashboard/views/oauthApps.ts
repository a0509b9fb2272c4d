import { SCOPE_ORDER } from '../../domain/principal.ts';
import { html, type Html } from '../../lib/html.ts';
import type { OAuthClientDoc } from '../../services/oauthClients.ts';
import { choiceGroup, formProblem, newOnce, textArea, textField, type FormState } from '../forms.ts';
import { csrfField, dateTime, pagination, secretReveal } from '../layout.ts';

export const APPS_PATH = '/dashboard/settings/oauth-apps';

const TYPE_OPTIONS = [
  { value: 'none', label: 'Public: a single-page, mobile or desktop app (no secret, PKCE)' },
  { value: 'client_secret_basic', label: 'Confidential: a server-side app that can keep a secret' },
];
const GRANT_OPTIONS = [
  { value: 'authorization_code', label: 'Authorization code (users sign in)' },
  { value: 'refresh_token', label: 'Refresh tokens' },
  { value: 'client_credentials', label: 'Client credentials (no user; confidential only)' },
];
const SCOPE_OPTIONS = SCOPE_ORDER.map((s) => ({ value: s, label: s }));
const SECURITY_OPTIONS = [
  { value: 'dpop_bound_access_tokens', label: 'Require DPoP: tokens are bound to the app\'s own key, useless to anyone who copies them' },
  { value: 'require_pushed_authorization_requests', label: 'Require pushed authorization requests (PAR): sign-in requests are sent to Slipway first, not in the URL' },
];

const typeLabel = (c: OAuthClientDoc) => (c.token_endpoint_auth_method === 'none' ? 'public' : 'confidential');

export interface OAuthAppsView {
  csrf: string;
  issuer: string;
  apps: { items: OAuthClientDoc[]; total: number; page: number };
  /** The Register form as sent, after a refusal. */
  form?: FormState | undefined;
}

function registerForm(csrf: string, form: FormState | undefined): Html {
  const state = form ?? { values: { token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], scope: ['read'] }, errors: {} };
  return html`<section class="panel" aria-labelledby="register-title">
<h2 id="register-title">Register an app</h2>
${formProblem(form, { client_name: 'Name', redirect_uris: 'Redirect URIs', token_endpoint_auth_method: 'Type', grant_types: 'Grant types', scope: 'Scopes' })}
<form method="post" action="${APPS_PATH}" novalidate>
${csrfField(csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
${textField({ form: 'app', name: 'client_name', label: 'Name', state, required: true, maxlength: 100 })}
${textArea({ form: 'app', name: 'redirect_uris', label: 'Redirect URIs', state, rows: 3, hint: 'One per line; matched exactly. https, http on 127.0.0.1, or a private-use scheme like com.example.app:/callback.' })}
${choiceGroup({ form: 'app', name: 'token_endpoint_auth_method', label: 'Type', type: 'radio', state, options: TYPE_OPTIONS })}
${choiceGroup({ form: 'app', name: 'grant_types', label: 'Grant types', state, options: GRANT_OPTIONS })}
${choiceGroup({ form: 'app', name: 'scope', label: 'Scopes it may ask for', state, options: SCOPE_OPTIONS, hint: 'Any app may also ask to sign users in with OpenID Connect (openid, profile, email).' })}
${choiceGroup({ form: 'app', name: 'security', label: 'Security settings', state, options: SECURITY_OPTIONS })}
<div class="form-actions"><button type="submit">Register app</button></div>
</form>
</section>`;
}

function appRow(csrf: string, c: OAuthClientDoc): Html {
  return html`<tr>
<td data-label="Name">${c.client_name}<br><span class="muted">created ${dateTime(c.created_at)}</span></td>
<td data-label="Client ID"><code>${c._id}</code></td>
<td data-label="Type">${typeLabel(c)}${c.dpop_bound_access_tokens ? html`<br><span class="muted">DPoP required</span>` : ''}${c.require_pushed_authorization_requests ? html`<br><span class="muted">PAR required</span>` : ''}</td>
<td data-label="Redirects">${c.redirect_uris.length ? c.redirect_uris.map((u, i) => html`${i ? html`<br>` : ''}<code>${u}</code>`) : html`<span class="muted">—</span>`}</td>
<td data-label="Scopes">${c.scope}</td>
<td data-label="Actions"><div class="row-actions">${
    c.token_endpoint_auth_method === 'client_secret_basic'
      ? html`<form method="post" action="${APPS_PATH}/${c._id}/rotate" class="inline">${csrfField(csrf)}<input type="hidden" name="_once" value="${newOnce()}"><button type="submit" class="secondary small" aria-label="Rotate the secret of ${c.client_name}">Rotate secret</button></form>`
      : ''
  }<a href="${APPS_PATH}/${c._id}/delete" aria-label="Delete ${c.client_name}…">Delete…</a></div></td>
</tr>`;
}

/** Settings › OAuth Apps: the Register form, then the registered apps. */
export function oauthAppsView(v: OAuthAppsView): Html {
  return html`<p class="crumb">Settings</p>
<h1>OAuth Apps</h1>
<p class="muted">Applications that act for your users sign them in at <code>${v.issuer}/authorize</code> (authorization code with PKCE).</p>
${registerForm(v.csrf, v.form)}
<section class="panel" aria-labelledby="apps-title">
<h2 id="apps-title">Registered apps</h2>
${
  v.apps.items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Type</th><th scope="col">Redirect URIs</th><th scope="col">Scopes</th><th scope="col">Actions</th></tr></thead>
<tbody>
${v.apps.items.map((c) => appRow(v.csrf, c))}
</tbody></table></div>`
    : html`<p class="empty">No apps registered yet.</p>`
}
${pagination(v.apps.page, 20, v.apps.total, (n) => `${APPS_PATH}?page=${n}`)}
</section>`;
}

/** The page after registering or rotating: the client id, and the secret once (confidential apps). */
export function issuedAppView(title: string, client: OAuthClientDoc, secret: string | null, lead: Html): Html {
  return html`<p class="crumb">Settings › OAuth Apps</p>
<h1>${title}</h1>
${lead}
<dl class="props">
<dt>Client ID</dt><dd><code>${client._id}</code></dd>
<dt>Type</dt><dd>${typeLabel(client)}</dd>
</dl>
${secret ? secretReveal('client-secret', 'Client secret', secret) : html`<p>Public apps have no secret: they prove themselves with PKCE.</p>`}
<p><a href="${APPS_PATH}">Back to OAuth apps</a></p>`;
}
