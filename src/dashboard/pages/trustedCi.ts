import type { Context } from 'koa';
import { validationFailed } from '../../errors.ts';
import { html } from '../../lib/html.ts';
import { CreateTrustPolicyBody } from '../../schemas/trustPolicies.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { list, str, type FormState, type FormValues } from '../forms.ts';
import { success, type PageRouter } from '../pageRouter.ts';
import { projectScoped } from './projectSettings.ts';
import { TRUSTED_CI_PATH, trustedCiView } from '../views/trustedCi.ts';

const policiesOf = (projectId: string) => `${TRUSTED_CI_PATH}?project=${encodeURIComponent(projectId)}`;

/** `name=value` lines as the claims map; a line without `=` is refused on the field. */
function claimsOf(text: string): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const line of text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf('=');
    if (at <= 0) throw validationFailed([{ field: 'claims', message: 'write one claim per line, as name=value' }]);
    claims[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return claims;
}

/** The form as CreateTrustPolicyBody: environments comma-separated (empty: all), the lifetime a whole number. */
function policyFields(form: FormValues) {
  if (!str(form, 'project_id')) throw validationFailed([{ field: 'project_id', message: 'choose a project' }]);
  const environments = str(form, 'environments').split(/[\s,]+/).filter(Boolean);
  const ttl = str(form, 'max_ttl_seconds');
  const audience = str(form, 'audience');
  return {
    name: str(form, 'name'),
    issuer: str(form, 'issuer'),
    ...(audience ? { audience } : {}),
    claims: claimsOf(str(form, 'claims')),
    scopes: list(form, 'scopes'),
    environments: environments.length ? environments : null,
    ...(ttl ? { max_ttl_seconds: /^\d{1,5}$/.test(ttl) ? Number(ttl) : Number.NaN } : {}),
  };
}

/**
 * Settings > Trusted CI (docs/product.md §13): a project's trust policies, created and deleted with the
 * admin scope as on /v1, with copy-paste snippets for GitHub Actions and GitLab CI.
 */
export function registerTrustedCiPages(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { projects, trustPolicies } = deps.services;

  async function showList(ctx: Context, form?: FormState, status = 200) {
    const policies = await projectScoped(ctx, projects, form, (principal, projectId, page) => trustPolicies.list(principal, projectId, {}, page));
    const body = trustedCiView({ ...policies, csrf: dash(ctx).viewer.csrf, publicUrl: config.publicUrl, tokenUrl: `${config.issuer}/token`, form });
    sendPage(ctx, config, { title: 'Trusted CI', status, body });
  }

  pages.get('/settings/trusted-ci', 'admin', (ctx) => showList(ctx));

  pages.form('/settings/trusted-ci', {
    scope: 'admin',
    schema: CreateTrustPolicyBody,
    fields: policyFields,
    // As on /v1: an archived project gets no new policies (409 project_not_active).
    run: (_ctx, input, { principal, form }) => trustPolicies.create(principal, str(form, 'project_id'), input),
    answer: (policy) => success(policiesOf(policy.project_id), `“${policy.name}” is trusted.`),
    refused: { fields: ['name', 'project_id', 'issuer', 'audience', 'claims', 'scopes', 'environments', 'max_ttl_seconds'], rerender: showList },
  });

  pages.confirm('/settings/trusted-ci/:projectId/:policyId/delete', 'admin', async (ctx, { principal }) => {
    const policy = await trustPolicies.get(principal, ctx.params.projectId, ctx.params.policyId);
    const project = await projects.get(principal, policy.project_id);
    return {
      page: `Delete ${policy.name}`,
      crumb: 'Settings › Trusted CI',
      title: `Delete “${policy.name}”?`,
      message: html`<p>Workflows of <code>${policy.issuer}</code> will no longer get tokens for ${project.name}, and tokens they got already stop working at once. It cannot be undone.</p>`,
      action: `${TRUSTED_CI_PATH}/${project._id}/${policy._id}/delete`,
      button: 'Delete policy',
      cancelHref: policiesOf(project._id),
    };
  });

  pages.form('/settings/trusted-ci/:projectId/:policyId/delete', {
    scope: 'admin',
    run: (ctx, _input, { principal }) => trustPolicies.delete(principal, ctx.params.projectId, ctx.params.policyId),
    answer: (policy) => success(policiesOf(policy.project_id), `“${policy.name}” deleted.`),
  });
}
