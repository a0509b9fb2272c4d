import type { Context } from 'koa';
import { validationFailed } from '../../errors.ts';
import { html } from '../../lib/html.ts';
import { CreateApiKeyBody, RotateApiKeyBody } from '../../schemas/apiKeys.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { list, str, type FormState, type FormValues } from '../forms.ts';
import { success, type PageRouter } from '../pageRouter.ts';
import { projectScoped } from './projectSettings.ts';
import { apiKeysView, GRACE_OPTIONS, issuedKeyView, KEYS_PATH } from '../views/apiKeys.ts';

const ALREADY_SUBMITTED = 'That form was already submitted. A key is shown only once, when it is created or rotated; if it was lost, rotate the key.';
const keysOf = (projectId: string) => `${KEYS_PATH}?project=${encodeURIComponent(projectId)}`;

/** The Create Key form as CreateApiKeyBody (an expiry date is the end of that day, UTC). */
function createKeyFields(form: FormValues) {
  if (!str(form, 'project_id')) throw validationFailed([{ field: 'project_id', message: 'choose a project' }]);
  const expiresOn = str(form, 'expires_on');
  if (expiresOn && !/^\d{4}-\d{2}-\d{2}$/.test(expiresOn)) throw validationFailed([{ field: 'expires_on', message: 'use a date like 2030-12-31' }]);
  return { name: str(form, 'name'), scopes: list(form, 'scopes'), expires_at: expiresOn ? `${expiresOn}T23:59:59.999Z` : null };
}

/**
 * Settings > API Keys (docs/product.md §2, §5): list a project's keys, Create Key (name, project, scopes,
 * optional expiry), rotate with a grace period, revoke. Managing keys needs admin, as on /v1 (docs/product.md
 * §3; never open to an API key). A new or rotated key is shown once, in the POST response itself
 * (no-store); see DashboardClientService.claimForm for reloads.
 */
export function registerApiKeyPages(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { projects, apiKeys } = deps.services;

  async function showList(ctx: Context, form?: FormState, status = 200) {
    const keys = await projectScoped(ctx, projects, form, (principal, projectId, page) => apiKeys.list(principal, projectId, {}, page));
    sendPage(ctx, config, { title: 'API Keys', status, body: apiKeysView({ ...keys, csrf: dash(ctx).viewer.csrf, form }) });
  }

  const showIssued = (ctx: Context, o: Omit<Parameters<typeof issuedKeyView>[0], 'publicUrl'>) =>
    sendPage(ctx, config, { title: o.title, body: issuedKeyView({ ...o, publicUrl: config.publicUrl }) });

  pages.get('/settings/api-keys', 'admin', (ctx) => showList(ctx));

  pages.form('/settings/api-keys', {
    scope: 'admin',
    once: { back: () => KEYS_PATH, message: ALREADY_SUBMITTED },
    schema: CreateApiKeyBody,
    fields: createKeyFields,
    run: async (ctx, input, { principal, form }) => {
      // As on /v1: an archived project gets no new keys (409 project_not_active).
      const issued = await apiKeys.create(principal, str(form, 'project_id'), input);
      const project = await projects.get(principal, issued.apiKey.project_id);
      ctx.state.log?.info({ api_key_id: issued.apiKey._id, project_id: project._id }, 'api key created in the dashboard');
      return { ...issued, project };
    },
    answer: ({ apiKey, key, project }, ctx) =>
      showIssued(ctx, {
        title: 'API key created',
        lead: html`<p>The key <strong>${apiKey.name}</strong> for project <strong>${project.name}</strong> (${apiKey.scopes.join(', ')}) is ready.</p>`,
        key,
        projectId: project._id,
      }),
    refused: { fields: ['name', 'project_id', 'scopes', 'expires_on'], rename: { expires_at: 'expires_on' }, rerender: showList },
  });

  pages.form('/settings/api-keys/:projectId/:keyId/rotate', {
    scope: 'admin',
    once: { back: (ctx) => keysOf(ctx.params.projectId), message: ALREADY_SUBMITTED },
    schema: RotateApiKeyBody,
    fields: (form) => {
      const grace = str(form, 'grace_period_seconds');
      return { grace_period_seconds: /^\d{1,7}$/.test(grace) ? Number(grace) : Number.NaN };
    },
    // As on /v1: an archived project issues no new secrets (409 project_not_active).
    run: (ctx, input, { principal }) => apiKeys.rotate(principal, ctx.params.projectId, ctx.params.keyId, input),
    answer: ({ apiKey, key }, ctx, { form }) => {
      const option = GRACE_OPTIONS.find((o) => o.value === str(form, 'grace_period_seconds'));
      showIssued(ctx, {
        title: 'API key rotated',
        lead: html`<p>The key <strong>${apiKey.name}</strong> has a new secret. ${option ? `${option.label}.` : ''}</p>`,
        key,
        projectId: apiKey.project_id,
      });
    },
    refused: { back: (ctx) => keysOf(ctx.params.projectId), message: 'The key could not be rotated.' },
  });

  pages.confirm('/settings/api-keys/:projectId/:keyId/revoke', 'admin', async (ctx, { principal }) => {
    const key = await apiKeys.get(principal, ctx.params.projectId, ctx.params.keyId);
    const project = await projects.get(principal, key.project_id);
    return {
      page: `Revoke ${key.name}`,
      crumb: 'Settings › API Keys',
      title: `Revoke “${key.name}”?`,
      message: html`<p>Requests with this key (<code>${key.prefix}…${key.last_four}</code>, project ${project.name}) will be refused at once. It cannot be undone.</p>`,
      action: `${KEYS_PATH}/${project._id}/${key._id}/revoke`,
      button: 'Revoke key',
      cancelHref: keysOf(project._id),
    };
  });

  pages.form('/settings/api-keys/:projectId/:keyId/revoke', {
    scope: 'admin',
    run: (ctx, _input, { principal }) => apiKeys.revoke(principal, ctx.params.projectId, ctx.params.keyId),
    answer: (key) => success(keysOf(key.project_id), `Key “${key.name}” revoked.`),
  });
}
