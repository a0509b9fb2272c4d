import { html, type Html } from '../../lib/html.ts';
import { presentApiKey } from '../../presenters/apiKeys.ts';
import type { ApiKeyDoc } from '../../services/apiKeys.ts';
import { choiceGroup, formProblem, newOnce, selectField, textField, type FormState } from '../forms.ts';
import { csrfField, dateTime, secretReveal, statusBadge } from '../layout.ts';
import { projectSettingsView, type ProjectOption, type ProjectSettingsData } from './projectSettings.ts';

export const KEYS_PATH = '/dashboard/settings/api-keys';

const SCOPE_OPTIONS = [
  { value: 'read', label: 'read: view projects, deployments, configuration' },
  { value: 'write', label: 'write: also create and change them' },
  { value: 'admin', label: 'admin: also delete the project and reveal secrets' },
];

export const GRACE_OPTIONS = [
  { value: '0', label: 'Old key stops now' },
  { value: '3600', label: 'Old key works 1 more hour' },
  { value: '86400', label: 'Old key works 24 more hours' },
  { value: '604800', label: 'Old key works 7 more days' },
];

export type ApiKeysView = ProjectSettingsData<ApiKeyDoc>;

function createKeyForm(v: ApiKeysView, options: ProjectOption[]): Html {
  const state: FormState = v.form ?? { values: { project_id: v.selected?._id ?? '', scopes: ['read'] }, errors: {} };
  return html`<section class="panel" aria-labelledby="create-key-title">
<h2 id="create-key-title">Create Key</h2>
${formProblem(v.form, { name: 'Name', project_id: 'Project', scopes: 'Scopes', expires_on: 'Expires on' })}
<form method="post" action="${KEYS_PATH}" novalidate>
${csrfField(v.csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
<div class="form-grid">
${textField({ form: 'key', name: 'name', label: 'Name', state, required: true, maxlength: 100, hint: 'Say where it is used, e.g. “GitHub Actions deploy”.' })}
${selectField({ form: 'key', name: 'project_id', label: 'Project', state, options })}
</div>
${choiceGroup({ form: 'key', name: 'scopes', label: 'Scopes', state, options: SCOPE_OPTIONS, hint: 'Each scope includes the ones above it.' })}
${textField({ form: 'key', name: 'expires_on', label: 'Expires on (optional)', type: 'date', state, hint: 'The key stops working at the end of this day (UTC). Leave empty for no expiry.' })}
<div class="form-actions"><button type="submit">Create Key</button></div>
</form>
</section>`;
}

function keyActions(csrf: string, doc: ApiKeyDoc): Html {
  const base = `${KEYS_PATH}/${doc.project_id}/${doc._id}`;
  return html`<div class="row-actions">
<form method="post" action="${base}/rotate" class="inline">
${csrfField(csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
<label for="grace-${doc._id}" class="visually-hidden">Grace period for ${doc.name}</label>
<select id="grace-${doc._id}" name="grace_period_seconds">${GRACE_OPTIONS.map((o) => html`<option value="${o.value}">${o.label}</option>`)}</select>
<button type="submit" class="secondary small" aria-label="Rotate ${doc.name}">Rotate</button>
</form>
<a href="${base}/revoke" aria-label="Revoke ${doc.name}…">Revoke…</a>
</div>`;
}

function keyTable(csrf: string, items: ApiKeyDoc[]): Html {
  return html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody>
${items.map((doc) => {
  const k = presentApiKey(doc);
  return html`<tr>
<td data-label="Name">${k.name}<br><span class="muted">created ${dateTime(doc.created_at)}</span></td>
<td data-label="Key"><code>${k.prefix}…${k.last_four}</code></td>
<td data-label="Scopes">${k.scopes.join(', ')}</td>
<td data-label="Status">${statusBadge(k.status)}</td>
<td data-label="Last used">${dateTime(doc.last_used_at)}</td>
<td data-label="Expires">${doc.expires_at ? dateTime(doc.expires_at) : html`<span class="muted">Never</span>`}</td>
<td data-label="Actions">${k.status === 'active' ? keyActions(csrf, doc) : html`<span class="muted">—</span>`}</td>
</tr>`;
})}
</tbody></table></div>`;
}

/**
 * Settings › API Keys: Create Key above the chosen project's keys (rotate with a grace period,
 * revoke); with no project yet, a pointer to create one.
 */
export function apiKeysView(v: ApiKeysView): Html {
  return projectSettingsView(v, {
    path: KEYS_PATH,
    title: 'API Keys',
    lead: html`<p class="muted">An API key lets a server or CI job call the API for one project: send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>`,
    noProject: 'API keys belong to a project.',
    form: (options) => createKeyForm(v, options),
    listId: 'keys-title',
    listTitle: 'Keys of',
    showButton: 'Show keys',
    table: (items) => keyTable(v.csrf, items),
    empty: 'This project has no API keys yet.',
  });
}

/** The page that shows a new or rotated key, once. */
export function issuedKeyView(o: { title: string; lead: Html; key: string; projectId: string; publicUrl: string }): Html {
  return html`<p class="crumb">Settings › API Keys</p>
<h1>${o.title}</h1>
${o.lead}
${secretReveal('new-api-key', 'Your new API key', o.key)}
<p>Use it as <code>Authorization: Bearer &lt;key&gt;</code> on requests to <code>${o.publicUrl}/v1</code>.</p>
<p><a href="${KEYS_PATH}?project=${encodeURIComponent(o.projectId)}">Back to API keys</a></p>`;
}
