import { EVENT_TYPES } from '../../domain/eventTypes.ts';
import { html, type Html } from '../../lib/html.ts';
import type { WebhookDeliveryDoc, WebhookDoc } from '../../services/webhooks.ts';
import { choiceGroup, formProblem, newOnce, textField, type FormState } from '../forms.ts';
import { csrfField, dateTime, pagination, secretReveal, statusBadge } from '../layout.ts';

export const HOOKS_PATH = '/dashboard/settings/webhooks';
const EVENT_OPTIONS = [{ value: '*', label: 'Every event (*)' }, ...EVENT_TYPES.map((t) => ({ value: t, label: t }))];

interface Paged<T> {
  items: T[];
  total: number;
  page: number;
}

function addEndpointForm(csrf: string, form: FormState | undefined): Html {
  const state = form ?? { values: { events: ['deployment.status_changed'] }, errors: {} };
  return html`<section class="panel" aria-labelledby="add-title">
<h2 id="add-title">Add an endpoint</h2>
${formProblem(form, { url: 'URL', events: 'Events', description: 'Description' })}
<form method="post" action="${HOOKS_PATH}" novalidate>
${csrfField(csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
${textField({ form: 'hook', name: 'url', label: 'URL', state, required: true, maxlength: 2048, type: 'url', hint: 'https only; the host must resolve to public addresses.' })}
${textField({ form: 'hook', name: 'description', label: 'Description', state, maxlength: 500 })}
${choiceGroup({ form: 'hook', name: 'events', label: 'Events', state, options: EVENT_OPTIONS })}
<div class="form-actions"><button type="submit">Add endpoint</button></div>
</form>
</section>`;
}

function endpointTable(items: WebhookDoc[]): Html {
  return html`<div class="table-wrap"><table class="list stack">
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
</tbody></table></div>`;
}

/** Settings › Webhooks: the Add form, then the endpoints. */
export function webhooksView(v: { csrf: string; endpoints: Paged<WebhookDoc>; form?: FormState | undefined }): Html {
  return html`<p class="crumb">Settings</p>
<h1>Webhooks</h1>
<p class="muted">Slipway POSTs each event to your endpoints, signed with <code>Slipway-Signature</code>, and retries failures for 24 hours.</p>
${addEndpointForm(v.csrf, v.form)}
<section class="panel" aria-labelledby="hooks-title">
<h2 id="hooks-title">Endpoints</h2>
${v.endpoints.items.length ? endpointTable(v.endpoints.items) : html`<p class="empty">No endpoints yet.</p>`}
${pagination(v.endpoints.page, 20, v.endpoints.total, (n) => `${HOOKS_PATH}?page=${n}`)}
</section>`;
}

/** The page that shows a signing secret, once (added, rotated). */
export function webhookSecretView(title: string, webhook: WebhookDoc, secret: string, lead: Html): Html {
  return html`<p class="crumb">Settings › Webhooks</p>
<h1>${title}</h1>
${lead}
<dl class="props"><dt>URL</dt><dd><code>${webhook.url}</code></dd><dt>Webhook ID</dt><dd><code>${webhook._id}</code></dd></dl>
${secretReveal('webhook-secret', 'Signing secret', secret, 'if it is lost, rotate it.', 'Slipway keeps it encrypted and never shows it again')}
<p>Verify each delivery: HMAC-SHA256 of <code>t.body</code> keyed with this secret, compared with a <code>v1=</code> of <code>Slipway-Signature</code>.</p>
<p><a href="${HOOKS_PATH}/${webhook._id}">Go to the endpoint</a></p>`;
}

/** A one-button form on the endpoint's page. */
function endpointButton(csrf: string, webhook: WebhookDoc, action: string, label: string, aria: string, once = false): Html {
  return html`<form method="post" action="${HOOKS_PATH}/${webhook._id}/${action}" class="inline">${csrfField(csrf)}${once ? html`<input type="hidden" name="_once" value="${newOnce()}">` : ''}<button type="submit" class="secondary small" aria-label="${aria}">${label}</button></form>`;
}

function deliveryRow(csrf: string, webhook: WebhookDoc, d: WebhookDeliveryDoc): Html {
  return html`<tr>
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
      : html`<form method="post" action="${HOOKS_PATH}/${webhook._id}/deliveries/${d._id}/redeliver" class="inline">${csrfField(csrf)}<button type="submit" class="secondary small" aria-label="Redeliver ${d._id}">Redeliver</button></form>`
  }</td>
</tr>`;
}

function deliveryLog(csrf: string, webhook: WebhookDoc, deliveries: Paged<WebhookDeliveryDoc>): Html {
  return html`<section class="panel" aria-labelledby="log-title">
<h2 id="log-title">Deliveries</h2>
${
  deliveries.items.length
    ? html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col">Actions</th></tr></thead>
<tbody>
${deliveries.items.map((d) => deliveryRow(csrf, webhook, d))}
</tbody></table></div>`
    : html`<p class="empty">No deliveries yet.</p>`
}
${pagination(deliveries.page, 20, deliveries.total, (n) => `${HOOKS_PATH}/${webhook._id}?page=${n}`)}
</section>`;
}

/** One endpoint: its settings, its actions (enable or disable, ping, rotate, delete), its delivery log. */
export function endpointView(csrf: string, webhook: WebhookDoc, deliveries: Paged<WebhookDeliveryDoc>): Html {
  const button = (action: string, label: string, aria: string, once = false) => endpointButton(csrf, webhook, action, label, aria, once);
  const enabled = webhook.status === 'enabled';
  return html`<p class="crumb"><a href="${HOOKS_PATH}">Settings › Webhooks</a></p>
<h1>Endpoint</h1>
<dl class="props">
<dt>URL</dt><dd><code>${webhook.url}</code></dd>
<dt>Status</dt><dd>${statusBadge(webhook.status)}</dd>
<dt>Events</dt><dd>${webhook.events.join(', ')}</dd>
${webhook.description ? html`<dt>Description</dt><dd>${webhook.description}</dd>` : ''}
<dt>Created</dt><dd>${dateTime(webhook.created_at)}</dd>
</dl>
<div class="row-actions">
${enabled ? button('disable', 'Disable', 'Disable this endpoint') : button('enable', 'Enable', 'Enable this endpoint')}
${enabled ? button('ping', 'Send ping', 'Send a ping event') : ''}
${button('rotate', 'Rotate secret', 'Rotate the signing secret', true)}
<a href="${HOOKS_PATH}/${webhook._id}/delete">Delete…</a>
</div>
${deliveryLog(csrf, webhook, deliveries)}`;
}
