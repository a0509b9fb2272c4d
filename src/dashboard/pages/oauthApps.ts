import type { Context } from 'koa';
import { html } from '../../lib/html.ts';
import { RegisterClientBody } from '../../schemas/oauthClients.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { listPage, list, str, type FormState, type FormValues } from '../forms.ts';
import { success, type PageRouter } from '../pageRouter.ts';
import { APPS_PATH, issuedAppView, oauthAppsView } from '../views/oauthApps.ts';

const ALREADY_SUBMITTED = 'That form was already submitted. A client secret is shown only once; if it was lost, rotate it.';
const back = () => APPS_PATH;

/** The form's fields as the /v1 body says them (a line per redirect URI, a checkbox per scope). */
function registerFields(form: FormValues) {
  return {
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
  };
}

/**
 * Settings > OAuth Apps (admins): register an application (RFC 7591 field names, as on
 * /v1/oauth_clients), rotate a confidential client's secret (shown once), delete one (its grants are
 * revoked).
 */
export function registerOAuthAppPages(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { oauthClients } = deps.services;

  async function showList(ctx: Context, form?: FormState, status = 200) {
    const { principal, viewer } = dash(ctx);
    const apps = await listPage(ctx, (page) => oauthClients.list(principal, page));
    sendPage(ctx, config, { title: 'OAuth Apps', status, body: oauthAppsView({ csrf: viewer.csrf, issuer: config.issuer, apps, form }) });
  }

  pages.get('/settings/oauth-apps', 'admin', (ctx) => showList(ctx));

  pages.form('/settings/oauth-apps', {
    scope: 'admin',
    once: { back, message: ALREADY_SUBMITTED },
    schema: RegisterClientBody,
    fields: registerFields,
    run: (_ctx, input, { principal }) => oauthClients.register(principal, input),
    answer: ({ client, clientSecret }, ctx) => {
      const lead = html`<p><strong>${client.client_name}</strong> is registered.</p>`;
      sendPage(ctx, config, { title: 'App registered', body: issuedAppView('App registered', client, clientSecret, lead) });
    },
    refused: { fields: ['client_name', 'redirect_uris', 'token_endpoint_auth_method', 'grant_types', 'scope'], rerender: showList },
  });

  pages.form('/settings/oauth-apps/:id/rotate', {
    scope: 'admin',
    once: { back, message: ALREADY_SUBMITTED },
    run: (ctx, _input, { principal }) => oauthClients.rotateSecret(principal, ctx.params.id),
    answer: ({ client, clientSecret }, ctx) => {
      const lead = html`<p><strong>${client.client_name}</strong> has a new secret; the old one no longer works.</p>`;
      sendPage(ctx, config, { title: 'Client secret rotated', body: issuedAppView('Client secret rotated', client, clientSecret, lead) });
    },
    refused: { back, message: 'The secret could not be rotated.' },
  });

  pages.confirm('/settings/oauth-apps/:id/delete', 'admin', async (ctx, { principal }) => {
    const client = await oauthClients.get(principal, ctx.params.id);
    return {
      page: `Delete ${client.client_name}`,
      crumb: 'Settings › OAuth Apps',
      title: `Delete “${client.client_name}”?`,
      message: html`<p>Everyone signed in through this app loses that access: its tokens are revoked. It cannot be undone.</p>`,
      action: `${APPS_PATH}/${client._id}/delete`,
      button: 'Delete app',
      cancelHref: APPS_PATH,
    };
  });

  pages.form('/settings/oauth-apps/:id/delete', {
    scope: 'admin',
    run: (ctx, _input, { principal }) => oauthClients.delete(principal, ctx.params.id),
    answer: ({ client }) => success(APPS_PATH, `App “${client.client_name}” deleted.`),
  });
}
