import type Router from '@koa/router';
import type { Context } from 'koa';
import type { OAuthClientDoc } from '../../repositories/oauthClients.ts';
import { RegisterClientBody } from '../../schemas/oauthClients.ts';
import { parseInput } from '../../schemas/parse.ts';
import { SCOPE_ORDER } from '../../domain/principal.ts';
import { claimOnce, dash, newOnce, seeOther, sendPage, type DashboardDeps, type DashboardState, dashWith } from '../context.ts';
import { choiceGroup, formProblem, intParam, list, refusal, str, textArea, textField, type FormState } from '../forms.ts';
import { html, type Html } from '../../lib/html.ts';
import { confirmBody, csrfField, dateTime, pagination, secretReveal } from '../layout.ts';

const APPS_PATH = '/dashboard/settings/oauth-apps';
const ALREADY_SUBMITTED = 'That form was already submitted. A client secret is shown only once; if it was lost, rotate it.';

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

/**
 * Settings > OAuth Apps (admins): register an application (RFC 7591 field names, as on
 * /v1/oauth_clients), rotate a confidential client's secret (shown once), delete one (its grants are
 * revoked).
 */
export function registerOAuthAppPages(router: Router, deps: DashboardDeps): void {
  const { config, repos } = deps;
  const { oauthClients } = deps.services;

  const manage = (ctx: Context): DashboardState => dashWith(ctx, 'admin');

  const typeLabel = (c: OAuthClientDoc) => (c.token_endpoint_auth_method === 'none' ? 'public' : 'confidential');

  async function renderList(ctx: Context, form?: FormState, status = 200) {
    const state = dash(ctx);
    const page = intParam(ctx.query.page, 1);
    const { items, total } = await oauthClients.list(state.principal, { page, per_page: 20 });
    const registerState = form ?? { values: { token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], scope: ['read'] }, errors: {} };
    sendPage(ctx, config, {
      title: 'OAuth Apps',
      active: 'oauth-apps',
      status,
      body: html`<p class="crumb">Settings</p>
<h1>OAuth Apps</h1>
<p class="muted">Applications that act for your users sign them in at <code>${config.issuer}/authorize</code> (authorization code with PKCE).</p>
<section class="panel" aria-labelledby="register-title">
<h2 id="register-title">Register an app</h2>
${formProblem(form, { client_name: 'Name', redirect_uris: 'Redirect URIs', token_endpoint_auth_method: 'Type', grant_types: 'Grant types', scope: 'Scopes' })}
<form method="post" action="${APPS_PATH}" novalidate>
${csrfField(state.viewer.csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
${textField({ form: 'app', name: 'client_name', label: 'Name', state: registerState, required: true, maxlength: 100 })}
${textArea({ form: 'app', name: 'redirect_uris', label: 'Redirect URIs', state: registerState, rows: 3, hint: 'One per line; matched exactly. https, http on 127.0.0.1, or a private-use scheme like com.example.app:/callback.' })}
${choiceGroup({ form: 'app', name: 'token_endpoint_auth_method', label: 'Type', type: 'radio', state: registerState, options: TYPE_OPTIONS })}
${choiceGroup({ form: 'app', name: 'grant_types', label: 'Grant types', state: registerState, options: GRANT_OPTIONS })}
${choiceGroup({ form: 'app', name: 'scope', label: 'Scopes it may ask for', state: registerState, options: SCOPE_OPTIONS, hint: 'Any app may also ask to sign users in with OpenID Connect (openid, profile, email).' })}
${choiceGroup({ form: 'app', name: 'security', label: 'Security settings', state: registerState, options: SECURITY_OPTIONS })}
<div class="form-actions"><button type="submit">Register app</button></div>
</form>
</section>
<section class="panel" aria-labelledby="apps-title">
<h2 id="apps-title">Registered apps</h2>
${
  items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Type</th><th scope="col">Redirect URIs</th><th scope="col">Scopes</th><th scope="col">Actions</th></tr></thead>
<tbody>
${items.map(
  (c) => html`<tr>
<td data-label="Name">${c.client_name}<br><span class="muted">created ${dateTime(c.created_at)}</span></td>
<td data-label="Client ID"><code>${c._id}</code></td>
<td data-label="Type">${typeLabel(c)}${c.dpop_bound_access_tokens ? html`<br><span class="muted">DPoP required</span>` : ''}${c.require_pushed_authorization_requests ? html`<br><span class="muted">PAR required</span>` : ''}</td>
<td data-label="Redirects">${c.redirect_uris.length ? c.redirect_uris.map((u, i) => html`${i ? html`<br>` : ''}<code>${u}</code>`) : html`<span class="muted">—</span>`}</td>
<td data-label="Scopes">${c.scope}</td>
<td data-label="Actions"><div class="row-actions">${
    c.token_endpoint_auth_method === 'client_secret_basic'
      ? html`<form method="post" action="${APPS_PATH}/${c._id}/rotate" class="inline">${csrfField(state.viewer.csrf)}<input type="hidden" name="_once" value="${newOnce()}"><button type="submit" class="secondary small" aria-label="Rotate the secret of ${c.client_name}">Rotate secret</button></form>`
      : ''
  }<a href="${APPS_PATH}/${c._id}/delete" aria-label="Delete ${c.client_name}…">Delete…</a></div></td>
</tr>`,
)}
</tbody></table></div>`
    : html`<p class="empty">No apps registered yet.</p>`
}
${pagination(page, 20, total, (n) => `${APPS_PATH}?page=${n}`)}
</section>`,
    });
  }

  function renderIssued(ctx: Context, title: string, client: OAuthClientDoc, secret: string | null, lead: Html) {
    sendPage(ctx, config, {
      title,
      active: 'oauth-apps',
      body: html`<p class="crumb">Settings › OAuth Apps</p>
<h1>${title}</h1>
${lead}
<dl class="props">
<dt>Client ID</dt><dd><code>${client._id}</code></dd>
<dt>Type</dt><dd>${typeLabel(client)}</dd>
</dl>
${secret ? secretReveal('client-secret', 'Client secret', secret) : html`<p>Public apps have no secret: they prove themselves with PKCE.</p>`}
<p><a href="${APPS_PATH}">Back to OAuth apps</a></p>`,
    });
  }

  router.get('/settings/oauth-apps', async (ctx) => {
    manage(ctx);
    await renderList(ctx);
  });

  router.post('/settings/oauth-apps', async (ctx) => {
    const state = manage(ctx);
    const form = state.form;
    const once = await claimOnce(repos, state, form._once);
    if (!once) return seeOther(ctx, config, APPS_PATH, { kind: 'error', text: ALREADY_SUBMITTED });
    try {
      // The form's fields as the /v1 body says them (a line per redirect URI, a checkbox per scope).
      const input = parseInput(RegisterClientBody, {
        client_name: str(form, 'client_name'),
        redirect_uris: str(form, 'redirect_uris')
          .split(/\r?\n/)
          .map((u) => u.trim())
          .filter(Boolean),
        token_endpoint_auth_method: str(form, 'token_endpoint_auth_method'),
        grant_types: list(form, 'grant_types'),
        scope: list(form, 'scope').join(' '),
        dpop_bound_access_tokens: list(form, 'security').includes('dpop_bound_access_tokens'),
        require_pushed_authorization_requests: list(form, 'security').includes('require_pushed_authorization_requests'),
      });
      const { client, clientSecret } = await oauthClients.register(state.principal, input);
      await once.succeeded();
      renderIssued(ctx, 'App registered', client, clientSecret, html`<p><strong>${client.client_name}</strong> is registered.</p>`);
    } catch (err) {
      await once.failed();
      const refused = refusal(err, { fields: ['client_name', 'redirect_uris', 'token_endpoint_auth_method', 'grant_types', 'scope'] });
      if (!refused) throw err;
      await renderList(ctx, { values: form, ...refused }, refused.status);
    }
  });

  router.post('/settings/oauth-apps/:id/rotate', async (ctx) => {
    const state = manage(ctx);
    const once = await claimOnce(repos, state, state.form._once);
    if (!once) return seeOther(ctx, config, APPS_PATH, { kind: 'error', text: ALREADY_SUBMITTED });
    try {
      const { client, clientSecret } = await oauthClients.rotateSecret(state.principal, ctx.params.id!);
      await once.succeeded();
      renderIssued(ctx, 'Client secret rotated', client, clientSecret, html`<p><strong>${client.client_name}</strong> has a new secret; the old one no longer works.</p>`);
    } catch (err) {
      await once.failed();
      const refused = refusal(err, { fields: [] });
      if (!refused) throw err;
      seeOther(ctx, config, APPS_PATH, { kind: 'error', text: refused.message ?? 'The secret could not be rotated.' });
    }
  });

  router.get('/settings/oauth-apps/:id/delete', async (ctx) => {
    const state = manage(ctx);
    const client = await oauthClients.get(state.principal, ctx.params.id!);
    sendPage(ctx, config, {
      title: `Delete ${client.client_name}`,
      active: 'oauth-apps',
      body: confirmBody({
        crumb: 'Settings › OAuth Apps',
        title: `Delete “${client.client_name}”?`,
        message: html`<p>Everyone signed in through this app loses that access: its tokens are revoked. It cannot be undone.</p>`,
        action: `${APPS_PATH}/${client._id}/delete`,
        button: 'Delete app',
        cancelHref: APPS_PATH,
        csrf: state.viewer.csrf,
      }),
    });
  });

  router.post('/settings/oauth-apps/:id/delete', async (ctx) => {
    const state = manage(ctx);
    const { client } = await oauthClients.delete(state.principal, ctx.params.id!);
    seeOther(ctx, config, APPS_PATH, { kind: 'success', text: `App “${client.client_name}” deleted.` });
  });
}
