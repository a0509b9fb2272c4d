import type Router from '@koa/router';
import type { Context } from 'koa';
import { parseInput } from '../../schemas/parse.ts';
import type { WebhookDoc } from '../../repositories/webhooks.ts';
import { CreateWebhookBody, UpdateWebhookBody } from '../../schemas/webhooks.ts';
import { EVENT_TYPES } from '../../domain/eventTypes.ts';
import { claimOnce, dash, newOnce, seeOther, sendPage, type DashboardDeps, type DashboardState, dashWith } from '../context.ts';
import { choiceGroup, formProblem, intParam, list, refusal, str, textField, type FormState } from '../forms.ts';
import { html, type Html } from '../../lib/html.ts';
import { confirmBody, csrfField, dateTime, pagination, secretReveal, statusBadge } from '../layout.ts';

const HOOKS_PATH = '/dashboard/settings/webhooks';
const ALREADY_SUBMITTED = 'That form was already submitted. A signing secret is shown only once; if it was lost, rotate it.';
const EVENT_OPTIONS = [{ value: '*', label: 'Every event (*)' }, ...EVENT_TYPES.map((t) => ({ value: t, label: t }))];

/** A one-time secret with a copy button, saying what is true of this one: it is kept encrypted, not hashed. */
const secretOnce = (secret: string): Html =>
  secretReveal('webhook-secret', 'Signing secret', secret, 'if it is lost, rotate it.', 'Slipway keeps it encrypted and never shows it again');

/**
 * Settings > Webhooks (admins): add an endpoint (its signing secret shown once), enable or disable it,
 * rotate its secret, delete it, and read its delivery log with a Redeliver button per delivery.
 */
export function registerWebhookPages(router: Router, deps: DashboardDeps): void {
  const { config, repos } = deps;
  const { webhooks } = deps.services;

  const manage = (ctx: Context): DashboardState => dashWith(ctx, 'admin');

  async function renderList(ctx: Context, form?: FormState, status = 200) {
    const state = dash(ctx);
    const page = intParam(ctx.query.page, 1);
    const { items, total } = await webhooks.list(state.principal, { page, per_page: 20 });
    const createState = form ?? { values: { events: ['deployment.status_changed'] }, errors: {} };
    sendPage(ctx, config, {
      title: 'Webhooks',
      active: 'webhooks',
      status,
      body: html`<p class="crumb">Settings</p>
<h1>Webhooks</h1>
<p class="muted">Slipway POSTs each event to your endpoints, signed with <code>Slipway-Signature</code>, and retries failures for 24 hours.</p>
<section class="panel" aria-labelledby="add-title">
<h2 id="add-title">Add an endpoint</h2>
${formProblem(form, { url: 'URL', events: 'Events', description: 'Description' })}
<form method="post" action="${HOOKS_PATH}" novalidate>
${csrfField(state.viewer.csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
${textField({ form: 'hook', name: 'url', label: 'URL', state: createState, required: true, maxlength: 2048, type: 'url', hint: 'https only; the host must resolve to public addresses.' })}
${textField({ form: 'hook', name: 'description', label: 'Description', state: createState, maxlength: 500 })}
${choiceGroup({ form: 'hook', name: 'events', label: 'Events', state: createState, options: EVENT_OPTIONS })}
<div class="form-actions"><button type="submit">Add endpoint</button></div>
</form>
</section>
<section class="panel" aria-labelledby="hooks-title">
<h2 id="hooks-title">Endpoints</h2>
${
  items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
<tbody>
${items.map(
  (w) => html`<tr>
<td data-label="URL"><a href="${HOOKS_PATH}/${w._id}"><code>${w.url}</code></a>${w.description ? html`<br><span class="muted">${w.description}</span>` : ''}</td>
<td data-label="Events">${w.events.join(', ')}</td>
<td data-label="Status">${statusBadge(w.status)}</td>
<td data-label="Created">${dateTime(w.created_at)}</td>
</tr>`,
)}
</tbody></table></div>`
    : html`<p class="empty">No endpoints yet.</p>`
}
${pagination(page, 20, total, (n) => `${HOOKS_PATH}?page=${n}`)}
</section>`,
    });
  }

  function renderSecret(ctx: Context, title: string, webhook: WebhookDoc, secret: string, lead: Html) {
    sendPage(ctx, config, {
      title,
      active: 'webhooks',
      body: html`<p class="crumb">Settings › Webhooks</p>
<h1>${title}</h1>
${lead}
<dl class="props"><dt>URL</dt><dd><code>${webhook.url}</code></dd><dt>Webhook ID</dt><dd><code>${webhook._id}</code></dd></dl>
${secretOnce(secret)}
<p>Verify each delivery: HMAC-SHA256 of <code>t.body</code> keyed with this secret, compared with a <code>v1=</code> of <code>Slipway-Signature</code>.</p>
<p><a href="${HOOKS_PATH}/${webhook._id}">Go to the endpoint</a></p>`,
    });
  }

  async function renderEndpoint(ctx: Context, id: string) {
    const state = dash(ctx);
    const webhook = await webhooks.get(state.principal, id);
    const page = intParam(ctx.query.page, 1);
    const { items, total } = await webhooks.listDeliveries(state.principal, id, { page, per_page: 20 });
    const post = (action: string, label: string, aria: string, once = false) =>
      html`<form method="post" action="${HOOKS_PATH}/${webhook._id}/${action}" class="inline">${csrfField(state.viewer.csrf)}${once ? html`<input type="hidden" name="_once" value="${newOnce()}">` : ''}<button type="submit" class="secondary small" aria-label="${aria}">${label}</button></form>`;
    sendPage(ctx, config, {
      title: `Webhook ${webhook.url}`,
      active: 'webhooks',
      body: html`<p class="crumb"><a href="${HOOKS_PATH}">Settings › Webhooks</a></p>
<h1>Endpoint</h1>
<dl class="props">
<dt>URL</dt><dd><code>${webhook.url}</code></dd>
<dt>Status</dt><dd>${statusBadge(webhook.status)}</dd>
<dt>Events</dt><dd>${webhook.events.join(', ')}</dd>
${webhook.description ? html`<dt>Description</dt><dd>${webhook.description}</dd>` : ''}
<dt>Created</dt><dd>${dateTime(webhook.created_at)}</dd>
</dl>
<div class="row-actions">
${webhook.status === 'enabled' ? post('disable', 'Disable', 'Disable this endpoint') : post('enable', 'Enable', 'Enable this endpoint')}
${webhook.status === 'enabled' ? post('ping', 'Send ping', 'Send a ping event') : ''}
${post('rotate', 'Rotate secret', 'Rotate the signing secret', true)}
<a href="${HOOKS_PATH}/${webhook._id}/delete">Delete…</a>
</div>
<section class="panel" aria-labelledby="log-title">
<h2 id="log-title">Deliveries</h2>
${
  items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col">Actions</th></tr></thead>
<tbody>
${items.map(
  (d) => html`<tr>
<td data-label="Event"><code>${d.event_type}</code><br><span class="muted">${d._id} · ${dateTime(d.created_at)}</span></td>
<td data-label="Status">${statusBadge(d.status)}</td>
<td data-label="Attempts">${
    d.attempts.length
      ? html`<ol class="attempts">${d.attempts.map((a) => html`<li>${dateTime(a.at)}: ${a.status_code ?? 'no answer'} in ${a.duration_ms} ms${a.error ? html` (${a.error})` : ''}</li>`)}</ol>`
      : html`<span class="muted">none yet</span>`
  }</td>
<td data-label="Next attempt">${d.next_attempt_at ? dateTime(d.next_attempt_at) : html`<span class="muted">—</span>`}</td>
<td data-label="Actions">${
    d.status === 'pending'
      ? html`<span class="muted">pending</span>`
      : html`<form method="post" action="${HOOKS_PATH}/${webhook._id}/deliveries/${d._id}/redeliver" class="inline">${csrfField(state.viewer.csrf)}<button type="submit" class="secondary small" aria-label="Redeliver ${d._id}">Redeliver</button></form>`
  }</td>
</tr>`,
)}
</tbody></table></div>`
    : html`<p class="empty">No deliveries yet.</p>`
}
${pagination(page, 20, total, (n) => `${HOOKS_PATH}/${webhook._id}?page=${n}`)}
</section>`,
    });
  }

  router.get('/settings/webhooks', async (ctx) => {
    manage(ctx);
    await renderList(ctx);
  });

  router.post('/settings/webhooks', async (ctx) => {
    const state = manage(ctx);
    const form = state.form;
    const once = await claimOnce(repos, state, form._once);
    if (!once) return seeOther(ctx, config, HOOKS_PATH, { kind: 'error', text: ALREADY_SUBMITTED });
    try {
      const description = str(form, 'description').trim();
      const input = parseInput(CreateWebhookBody, { url: str(form, 'url').trim(), events: list(form, 'events'), ...(description ? { description } : {}) });
      const { webhook, secret } = await webhooks.create(state.principal, input);
      await once.succeeded();
      // Without a reserved id (no Idempotency-Key here) the endpoint is always new, with its secret.
      if (secret === null) throw new Error('a newly added webhook has no secret');
      renderSecret(ctx, 'Endpoint added', webhook, secret, html`<p>Deliveries to <strong>${webhook.url}</strong> start with the next matching event.</p>`);
    } catch (err) {
      await once.failed();
      const refused = refusal(err, { fields: ['url', 'events', 'description'] });
      if (!refused) throw err;
      await renderList(ctx, { values: form, ...refused }, refused.status);
    }
  });

  router.get('/settings/webhooks/:id', async (ctx) => {
    manage(ctx);
    await renderEndpoint(ctx, ctx.params.id!);
  });

  for (const [action, status] of [
    ['enable', 'enabled'],
    ['disable', 'disabled'],
  ] as const) {
    router.post(`/settings/webhooks/:id/${action}`, async (ctx) => {
      const state = manage(ctx);
      const webhook = await webhooks.update(state.principal, ctx.params.id!, parseInput(UpdateWebhookBody, { status }));
      seeOther(ctx, config, `${HOOKS_PATH}/${webhook._id}`, { kind: 'success', text: `Endpoint ${status}.` });
    });
  }

  router.post('/settings/webhooks/:id/ping', async (ctx) => {
    const state = manage(ctx);
    const back = `${HOOKS_PATH}/${ctx.params.id!}`;
    try {
      await webhooks.ping(state.principal, ctx.params.id!);
      seeOther(ctx, config, back, { kind: 'success', text: 'Ping queued.' });
    } catch (err) {
      const refused = refusal(err, { fields: [] });
      if (!refused) throw err;
      seeOther(ctx, config, back, { kind: 'error', text: refused.message ?? 'The ping could not be queued.' });
    }
  });

  router.post('/settings/webhooks/:id/rotate', async (ctx) => {
    const state = manage(ctx);
    const once = await claimOnce(repos, state, state.form._once);
    if (!once) return seeOther(ctx, config, HOOKS_PATH, { kind: 'error', text: ALREADY_SUBMITTED });
    try {
      const { webhook, secret } = await webhooks.rotateSecret(state.principal, ctx.params.id!);
      await once.succeeded();
      renderSecret(ctx, 'Signing secret rotated', webhook, secret, html`<p>The previous secret keeps signing beside this one for 24 hours, so your receiver can switch over.</p>`);
    } catch (err) {
      await once.failed();
      throw err;
    }
  });

  router.post('/settings/webhooks/:id/deliveries/:delivery/redeliver', async (ctx) => {
    const state = manage(ctx);
    const back = `${HOOKS_PATH}/${ctx.params.id!}`;
    try {
      await webhooks.redeliver(state.principal, ctx.params.id!, ctx.params.delivery!);
      seeOther(ctx, config, back, { kind: 'success', text: 'Delivery queued again.' });
    } catch (err) {
      const refused = refusal(err, { fields: [] });
      if (!refused) throw err;
      seeOther(ctx, config, back, { kind: 'error', text: refused.message ?? 'The delivery could not be queued.' });
    }
  });

  router.get('/settings/webhooks/:id/delete', async (ctx) => {
    const state = manage(ctx);
    const webhook = await webhooks.get(state.principal, ctx.params.id!);
    sendPage(ctx, config, {
      title: 'Delete endpoint',
      active: 'webhooks',
      body: confirmBody({
        crumb: 'Settings › Webhooks',
        title: `Delete the endpoint ${webhook.url}?`,
        message: html`<p>It stops receiving events at once, and its delivery log is removed. It cannot be undone.</p>`,
        action: `${HOOKS_PATH}/${webhook._id}/delete`,
        button: 'Delete endpoint',
        cancelHref: `${HOOKS_PATH}/${webhook._id}`,
        csrf: state.viewer.csrf,
      }),
    });
  });

  router.post('/settings/webhooks/:id/delete', async (ctx) => {
    const state = manage(ctx);
    const webhook = await webhooks.delete(state.principal, ctx.params.id!);
    seeOther(ctx, config, HOOKS_PATH, { kind: 'success', text: `Endpoint ${webhook.url} deleted.` });
  });
}
