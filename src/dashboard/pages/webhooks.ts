import type { Context } from 'koa';
import { html } from '../../lib/html.ts';
import { CreateWebhookBody, UpdateWebhookBody } from '../../schemas/webhooks.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { listPage, list, str, type FormState } from '../forms.ts';
import { success, type PageRouter, type WithParams } from '../pageRouter.ts';
import { endpointView, HOOKS_PATH, webhooksView, webhookSecretView } from '../views/webhooks.ts';

const ALREADY_SUBMITTED = 'That form was already submitted. A signing secret is shown only once; if it was lost, rotate it.';
const endpointPath = (ctx: WithParams<'id'>) => `${HOOKS_PATH}/${ctx.params.id}`;

/**
 * Settings > Webhooks (admins): add an endpoint (its signing secret shown once), enable or disable it,
 * rotate its secret, delete it, and read its delivery log with a Redeliver button per delivery.
 */
export function registerWebhookPages(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { webhooks } = deps.services;

  async function showList(ctx: Context, form?: FormState, status = 200) {
    const { principal, viewer } = dash(ctx);
    const endpoints = await listPage(ctx, (page) => webhooks.list(principal, page));
    sendPage(ctx, config, { title: 'Webhooks', status, body: webhooksView({ csrf: viewer.csrf, endpoints, form }) });
  }

  pages.get('/settings/webhooks', 'admin', (ctx) => showList(ctx));

  pages.get('/settings/webhooks/:id', 'admin', async (ctx, { principal, viewer }) => {
    const webhook = await webhooks.get(principal, ctx.params.id);
    const deliveries = await listPage(ctx, (page) => webhooks.listDeliveries(principal, webhook._id, page));
    sendPage(ctx, config, { title: `Webhook ${webhook.url}`, body: endpointView(viewer.csrf, webhook, deliveries) });
  });

  pages.form('/settings/webhooks', {
    scope: 'admin',
    once: { back: () => HOOKS_PATH, message: ALREADY_SUBMITTED },
    schema: CreateWebhookBody,
    fields: (form) => {
      const description = str(form, 'description').trim();
      return { url: str(form, 'url').trim(), events: list(form, 'events'), ...(description ? { description } : {}) };
    },
    run: async (_ctx, input, { principal }) => {
      const { webhook, secret } = await webhooks.create(principal, input);
      // Without a reserved id (no Idempotency-Key here) the endpoint is always new, with its secret.
      if (secret === null) throw new Error('a newly added webhook has no secret');
      return { webhook, secret };
    },
    answer: ({ webhook, secret }, ctx) => {
      const lead = html`<p>Deliveries to <strong>${webhook.url}</strong> start with the next matching event.</p>`;
      sendPage(ctx, config, { title: 'Endpoint added', body: webhookSecretView('Endpoint added', webhook, secret, lead) });
    },
    refused: { fields: ['url', 'events', 'description'], rerender: showList },
  });

  registerEndpointActions(pages, deps);
}

/** The endpoint's own buttons: enable or disable, ping, rotate its secret, redeliver, delete. */
function registerEndpointActions(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { webhooks } = deps.services;

  for (const [action, status] of [
    ['enable', 'enabled'],
    ['disable', 'disabled'],
  ] as const) {
    pages.form(`/settings/webhooks/:id/${action}`, {
      scope: 'admin',
      schema: UpdateWebhookBody,
      fields: () => ({ status }),
      run: (ctx, input, { principal }) => webhooks.update(principal, ctx.params.id, input),
      answer: (webhook) => success(`${HOOKS_PATH}/${webhook._id}`, `Endpoint ${status}.`),
    });
  }

  pages.form('/settings/webhooks/:id/ping', {
    scope: 'admin',
    run: (ctx, _input, { principal }) => webhooks.ping(principal, ctx.params.id),
    answer: (_result, ctx) => success(endpointPath(ctx), 'Ping queued.'),
    refused: { back: endpointPath, message: 'The ping could not be queued.' },
  });

  pages.form('/settings/webhooks/:id/rotate', {
    scope: 'admin',
    once: { back: () => HOOKS_PATH, message: ALREADY_SUBMITTED },
    run: (ctx, _input, { principal }) => webhooks.rotateSecret(principal, ctx.params.id),
    answer: ({ webhook, secret }, ctx) => {
      const lead = html`<p>The previous secret keeps signing beside this one for 24 hours, so your receiver can switch over.</p>`;
      sendPage(ctx, config, { title: 'Signing secret rotated', body: webhookSecretView('Signing secret rotated', webhook, secret, lead) });
    },
  });

  pages.form('/settings/webhooks/:id/deliveries/:delivery/redeliver', {
    scope: 'admin',
    run: (ctx, _input, { principal }) => webhooks.redeliver(principal, ctx.params.id, ctx.params.delivery),
    answer: (_result, ctx) => success(endpointPath(ctx), 'Delivery queued again.'),
    refused: { back: endpointPath, message: 'The delivery could not be queued.' },
  });

  pages.confirm('/settings/webhooks/:id/delete', 'admin', async (ctx, { principal }) => {
    const webhook = await webhooks.get(principal, ctx.params.id);
    return {
      page: 'Delete endpoint',
      crumb: 'Settings › Webhooks',
      title: `Delete the endpoint ${webhook.url}?`,
      message: html`<p>It stops receiving events at once, and its delivery log is removed. It cannot be undone.</p>`,
      action: `${HOOKS_PATH}/${webhook._id}/delete`,
      button: 'Delete endpoint',
      cancelHref: `${HOOKS_PATH}/${webhook._id}`,
    };
  });

  pages.form('/settings/webhooks/:id/delete', {
    scope: 'admin',
    run: (ctx, _input, { principal }) => webhooks.delete(principal, ctx.params.id),
    answer: (webhook) => success(HOOKS_PATH, `Endpoint ${webhook.url} deleted.`),
  });
}
