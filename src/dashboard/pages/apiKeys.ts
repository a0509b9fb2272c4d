import type Router from '@koa/router';
import type { Context } from 'koa';
import { assertScope } from '../../http/requireScope.ts';
import { validationFailed } from '../../errors.ts';
import type { ApiKeyDoc } from '../../repositories/apiKeys.ts';
import { presentApiKey } from '../../presenters/apiKeys.ts';
import { CreateApiKeyBody, RotateApiKeyBody } from '../../schemas/apiKeys.ts';
import { parseInput } from '../../schemas/parse.ts';
import { claimOnce, dash, newOnce, seeOther, sendPage, type DashboardDeps, type DashboardState } from '../context.ts';
import { choiceGroup, formProblem, intParam, list, queryValue, refusal, selectField, str, textField, type FormState } from '../forms.ts';
import { html, type Html } from '../../lib/html.ts';
import { confirmBody, csrfField, dateTime, pagination, secretReveal, statusBadge } from '../layout.ts';

const SCOPE_OPTIONS = [
  { value: 'read', label: 'read: view projects, deployments, configuration' },
  { value: 'write', label: 'write: also create and change them' },
  { value: 'admin', label: 'admin: also delete the project and reveal secrets' },
];

const GRACE_OPTIONS = [
  { value: '0', label: 'Old key stops now' },
  { value: '3600', label: 'Old key works 1 more hour' },
  { value: '86400', label: 'Old key works 24 more hours' },
  { value: '604800', label: 'Old key works 7 more days' },
];

const KEYS_PATH = '/dashboard/settings/api-keys';
const ALREADY_SUBMITTED = 'That form was already submitted. A key is shown only once, when it is created or rotated; if it was lost, rotate the key.';

/**
 * Settings > API Keys (docs/product.md §2, §5): list a project's keys, Create Key (name, project, scopes,
 * optional expiry), rotate with a grace period, revoke. Managing keys needs admin, as on /v1. A new or
 * rotated key is shown once, in the POST response itself (no-store); see `claimOnce` for reloads.
 */
export function registerApiKeyPages(router: Router, deps: DashboardDeps): void {
  const { config, repos } = deps;
  const { projects, apiKeys } = deps.services;

  /** The account's projects for the selectors (newest 100). */
  const projectChoices = async (state: DashboardState) => (await projects.list(state.principal, { page: 1, per_page: 100 })).items;

  async function renderList(ctx: Context, form?: FormState, status = 200) {
    const state = dash(ctx);
    const all = await projectChoices(state);
    const wanted = queryValue(ctx.query.project) || (form ? str(form.values, 'project_id') : '');
    const selected = all.find((p) => p._id === wanted) ?? (wanted ? await projects.get(state.principal, wanted) : all[0]);
    const page = intParam(ctx.query.page, 1);
    const keys = selected ? await apiKeys.list(state.principal, selected._id, {}, { page, per_page: 20 }) : { items: [], total: 0 };
    const options = all.map((p) => ({ value: p._id, label: p.name }));
    const createState: FormState = form ?? { values: { project_id: selected?._id ?? '', scopes: ['read'] }, errors: {} };

    sendPage(ctx, config, {
      title: 'API Keys',
      active: 'api-keys',
      status,
      body: html`<p class="crumb">Settings</p>
<h1>API Keys</h1>
<p class="muted">An API key lets a server or CI job call the API for one project: send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
${
  all.length === 0
    ? html`<div class="panel"><p>API keys belong to a project. <a href="/dashboard/projects">Create a project</a> first.</p></div>`
    : html`<section class="panel" aria-labelledby="create-key-title">
<h2 id="create-key-title">Create Key</h2>
${formProblem(form, { name: 'Name', project_id: 'Project', scopes: 'Scopes', expires_on: 'Expires on' })}
<form method="post" action="${KEYS_PATH}" novalidate>
${csrfField(state.viewer.csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
<div class="form-grid">
${textField({ form: 'key', name: 'name', label: 'Name', state: createState, required: true, maxlength: 100, hint: 'Say where it is used, e.g. “GitHub Actions deploy”.' })}
${selectField({ form: 'key', name: 'project_id', label: 'Project', state: createState, options })}
</div>
${choiceGroup({ form: 'key', name: 'scopes', label: 'Scopes', state: createState, options: SCOPE_OPTIONS, hint: 'Each scope includes the ones above it.' })}
${textField({ form: 'key', name: 'expires_on', label: 'Expires on (optional)', type: 'date', state: createState, hint: 'The key stops working at the end of this day (UTC). Leave empty for no expiry.' })}
<div class="form-actions"><button type="submit">Create Key</button></div>
</form>
</section>
<section class="panel" aria-labelledby="keys-title">
<h2 id="keys-title">Keys of ${selected?.name ?? ''}</h2>
<form method="get" action="${KEYS_PATH}" class="filters" aria-label="Choose a project">
${selectField({ form: 'show', name: 'project', label: 'Project', value: selected?._id ?? '', options })}
<div class="form-actions"><button type="submit" class="secondary">Show keys</button></div>
</form>
${keys.items.length ? keyTable(state, keys.items) : html`<p class="empty">This project has no API keys yet.</p>`}
${selected ? pagination(page, 20, keys.total, (n) => `${KEYS_PATH}?project=${encodeURIComponent(selected._id)}&page=${n}`) : ''}
</section>`
}`,
    });
  }

  function keyTable(state: DashboardState, items: ApiKeyDoc[]): Html {
    return html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody>
${items.map((doc) => {
  const k = presentApiKey(doc);
  const base = `${KEYS_PATH}/${doc.project_id}/${doc._id}`;
  return html`<tr>
<td data-label="Name">${k.name}<br><span class="muted">created ${dateTime(doc.created_at)}</span></td>
<td data-label="Key"><code>${k.prefix}…${k.last_four}</code></td>
<td data-label="Scopes">${k.scopes.join(', ')}</td>
<td data-label="Status">${statusBadge(k.status)}</td>
<td data-label="Last used">${dateTime(doc.last_used_at)}</td>
<td data-label="Expires">${doc.expires_at ? dateTime(doc.expires_at) : html`<span class="muted">Never</span>`}</td>
<td data-label="Actions">${
    k.status === 'active'
      ? html`<div class="row-actions">
<form method="post" action="${base}/rotate" class="inline">
${csrfField(state.viewer.csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
<label for="grace-${doc._id}" class="visually-hidden">Grace period for ${k.name}</label>
<select id="grace-${doc._id}" name="grace_period_seconds">${GRACE_OPTIONS.map((o) => html`<option value="${o.value}">${o.label}</option>`)}</select>
<button type="submit" class="secondary small" aria-label="Rotate ${k.name}">Rotate</button>
</form>
<a href="${base}/revoke" aria-label="Revoke ${k.name}…">Revoke…</a>
</div>`
      : html`<span class="muted">—</span>`
  }</td>
</tr>`;
})}
</tbody></table></div>`;
  }

  /** The page that shows a new secret, once. */
  function renderIssued(ctx: Context, o: { title: string; lead: Html; key: string; projectId: string }) {
    sendPage(ctx, config, {
      title: o.title,
      active: 'api-keys',
      body: html`<p class="crumb">Settings › API Keys</p>
<h1>${o.title}</h1>
${o.lead}
${secretReveal('new-api-key', 'Your new API key', o.key)}
<p>Use it as <code>Authorization: Bearer &lt;key&gt;</code> on requests to <code>${config.publicUrl}/v1</code>.</p>
<p><a href="${KEYS_PATH}?project=${encodeURIComponent(o.projectId)}">Back to API keys</a></p>`,
    });
  }

  const manage = (ctx: Context) => {
    const state = dash(ctx);
    // docs/product.md §3: managing API keys needs admin (and is never open to an API key).
    assertScope(state.principal, 'admin');
    return state;
  };

  router.get('/settings/api-keys', async (ctx) => {
    manage(ctx);
    await renderList(ctx);
  });

  router.post('/settings/api-keys', async (ctx) => {
    const state = manage(ctx);
    const form = state.form;
    const once = await claimOnce(repos, state, form._once);
    if (!once) return seeOther(ctx, config, KEYS_PATH, { kind: 'error', text: ALREADY_SUBMITTED });
    try {
      const projectId = str(form, 'project_id');
      if (!projectId) throw validationFailed([{ field: 'project_id', message: 'choose a project' }]);
      const expiresOn = str(form, 'expires_on');
      if (expiresOn && !/^\d{4}-\d{2}-\d{2}$/.test(expiresOn)) throw validationFailed([{ field: 'expires_on', message: 'use a date like 2030-12-31' }]);
      const input = parseInput(CreateApiKeyBody, {
        name: str(form, 'name'),
        scopes: list(form, 'scopes'),
        expires_at: expiresOn ? `${expiresOn}T23:59:59.999Z` : null,
      });
      // As on /v1: an archived project gets no new keys (409 project_not_active).
      const issued = await apiKeys.create(state.principal, projectId, input);
      await once.succeeded();
      const project = await projects.get(state.principal, issued.apiKey.project_id);
      ctx.state.log?.info({ api_key_id: issued.apiKey._id, project_id: project._id }, 'api key created in the dashboard');
      renderIssued(ctx, {
        title: 'API key created',
        lead: html`<p>The key <strong>${issued.apiKey.name}</strong> for project <strong>${project.name}</strong> (${issued.apiKey.scopes.join(', ')}) is ready.</p>`,
        key: issued.key,
        projectId: project._id,
      });
    } catch (err) {
      await once.failed();
      const refused = refusal(err, { fields: ['name', 'project_id', 'scopes', 'expires_on'], rename: { expires_at: 'expires_on' } });
      if (!refused) throw err;
      await renderList(ctx, { values: form, ...refused }, refused.status);
    }
  });

  router.post('/settings/api-keys/:projectId/:keyId/rotate', async (ctx) => {
    const state = manage(ctx);
    const projectId = ctx.params.projectId!;
    const back = `${KEYS_PATH}?project=${encodeURIComponent(projectId)}`;
    const once = await claimOnce(repos, state, state.form._once);
    if (!once) return seeOther(ctx, config, back, { kind: 'error', text: ALREADY_SUBMITTED });
    try {
      const grace = str(state.form, 'grace_period_seconds');
      const input = parseInput(RotateApiKeyBody, { grace_period_seconds: /^\d{1,7}$/.test(grace) ? Number(grace) : Number.NaN });
      // As on /v1: an archived project issues no new secrets (409 project_not_active).
      const issued = await apiKeys.rotate(state.principal, projectId, ctx.params.keyId!, input);
      await once.succeeded();
      const option = GRACE_OPTIONS.find((o) => o.value === grace);
      renderIssued(ctx, {
        title: 'API key rotated',
        lead: html`<p>The key <strong>${issued.apiKey.name}</strong> has a new secret. ${option ? `${option.label}.` : ''}</p>`,
        key: issued.key,
        projectId: issued.apiKey.project_id,
      });
    } catch (err) {
      await once.failed();
      const refused = refusal(err, { fields: [] });
      if (!refused) throw err;
      seeOther(ctx, config, back, { kind: 'error', text: refused.message ?? 'The key could not be rotated.' });
    }
  });

  router.get('/settings/api-keys/:projectId/:keyId/revoke', async (ctx) => {
    const state = manage(ctx);
    const key = await apiKeys.get(state.principal, ctx.params.projectId!, ctx.params.keyId!);
    const project = await projects.get(state.principal, key.project_id);
    sendPage(ctx, config, {
      title: `Revoke ${key.name}`,
      active: 'api-keys',
      body: confirmBody({
        crumb: 'Settings › API Keys',
        title: `Revoke “${key.name}”?`,
        message: html`<p>Requests with this key (<code>${key.prefix}…${key.last_four}</code>, project ${project.name}) will be refused at once. It cannot be undone.</p>`,
        action: `${KEYS_PATH}/${project._id}/${key._id}/revoke`,
        button: 'Revoke key',
        cancelHref: `${KEYS_PATH}?project=${encodeURIComponent(project._id)}`,
        csrf: state.viewer.csrf,
      }),
    });
  });

  router.post('/settings/api-keys/:projectId/:keyId/revoke', async (ctx) => {
    const state = manage(ctx);
    const key = await apiKeys.revoke(state.principal, ctx.params.projectId!, ctx.params.keyId!);
    seeOther(ctx, config, `${KEYS_PATH}?project=${encodeURIComponent(key.project_id)}`, { kind: 'success', text: `Key “${key.name}” revoked.` });
  });
}
