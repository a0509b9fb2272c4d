import { hasScope } from '../../http/requireScope.ts';
import type { Principal } from '../../domain/principal.ts';
import { html, type Html } from '../../lib/html.ts';
import { CreateConfigurationBody, ListConfigurationsQuery } from '../../schemas/configurations.ts';
import { CreateDeploymentBody, ListDeploymentsQuery, RedeployBody, UpdateDeploymentBody } from '../../schemas/deployments.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { intParam, listPage, parseQuery, queryValue, str, type FormState, type FormValues } from '../forms.ts';
import { success, type PageRouter, type WithParams } from '../pageRouter.ts';
import {
  ACTIVITY_DAYS,
  PER_PAGE,
  activityTab,
  apiKeysTab,
  configurationTab,
  deploymentsTab,
  projectHead,
  type ConfigurationTab,
  type ProjectTab,
  type ProjectViewer,
} from '../views/project.ts';
import { environmentsTab } from '../views/environments.ts';
import { actorsOf, changeSummary, type LiveEnvironment, type ReleaseContext } from '../views/release.ts';
import type { DeploymentDoc } from '../../services/deployments.ts';
import type { ProjectDoc } from '../../services/projects.ts';

/**
 * The release view's data: the project's environments with the deployment live in each, and now and the
 * names of who made these and `others` (one page: no project has hundreds of environments).
 */
export async function releaseData(deps: DashboardDeps, principal: Principal, project: ProjectDoc, others: readonly DeploymentDoc[] = []): Promise<{ live: LiveEnvironment[]; release: ReleaseContext }> {
  const { environments, deployments, dashboardClient } = deps.services;
  const list = await environments.list(principal, project._id, { page: 1, per_page: 100 });
  const live = await Promise.all(
    list.items.map(async (environment) => ({
      environment,
      live: environment.current_deployment_id ? await deployments.get(principal, project._id, environment.current_deployment_id).catch(() => null) : null,
    })),
  );
  const names = await dashboardClient.actorNames(principal.accountId, actorsOf([...live.map((e) => e.live), ...others]));
  return { live, release: { now: dashboardClient.now(), names } };
}

const ENVIRONMENT_MESSAGE = 'Use lower-case letters, digits and "-" only.';
const TAB_TITLES: Record<ProjectTab, string> = { deployments: 'Deployments', environments: 'Environments', configuration: 'Configuration', 'api-keys': 'API keys', activity: 'Activity' };
/** What a list shows while its filter is not valid. */
const NOTHING = { items: [], total: 0 };
const projectPath = (id: string) => `/dashboard/projects/${id}`;

/** What every handler of the project page shares: loading the project and showing a tab. */
function projectPage(deps: DashboardDeps) {
  const { config } = deps;
  const { projects, deployments, configurations } = deps.services;

  const load = async (ctx: WithParams<'id'>) => await projects.get(dash(ctx).principal, ctx.params.id);

  /** A tab of the project page: the head (details, actions, tabs), then what `body` makes of the project. */
  async function show(ctx: WithParams<'id'>, tab: ProjectTab, body: (v: ProjectViewer, principal: Principal) => Promise<Html>, status = 200) {
    const { principal, viewer } = dash(ctx);
    const project = await load(ctx);
    const v: ProjectViewer = { project, csrf: viewer.csrf, canWrite: hasScope(principal, 'write'), isAdmin: hasScope(principal, 'admin') };
    const content = await body(v, principal);
    sendPage(ctx, config, { title: `${TAB_TITLES[tab]} · ${project.name}`, status, body: html`${projectHead(v, tab)}${content}` });
  }

  /** Deployment filters, checked with GET /v1/projects/:id/deployments's own query schema. */
  async function showDeployments(ctx: WithParams<'id'>, form?: FormState, status = 200) {
    const filter = { environment: queryValue(ctx.query.environment), status: queryValue(ctx.query.status) };
    const { query, errors } = parseQuery(ListDeploymentsQuery, filter, { messages: { environment: ENVIRONMENT_MESSAGE, status: 'Choose a status from the list.' } });
    const page = intParam(ctx.query.dpage, 1);
    const wanted = { ...(query?.environment ? { environment: query.environment } : {}), ...(query?.status ? { status: query.status } : {}) };
    const tab = async (v: ProjectViewer, principal: Principal) => {
      const found = query ? await deployments.list(principal, v.project._id, wanted, { page, per_page: PER_PAGE }) : NOTHING;
      const activity = await deployments.activity(principal, v.project._id, ACTIVITY_DAYS);
      const { live, release } = await releaseData(deps, principal, v.project, found.items);
      return deploymentsTab(v, { filter: { ...filter, errors }, deployments: { ...found, page }, activity, live, release, form });
    };
    await show(ctx, 'deployments', tab, status);
  }

  /** The configuration filter, checked with GET /v1/projects/:id/configurations's own query schema. */
  async function showConfiguration(ctx: WithParams<'id'>, extras: Pick<ConfigurationTab, 'form' | 'revealed'> = {}, status = 200) {
    const environment = queryValue(ctx.query.cenv);
    const { query, errors } = parseQuery(ListConfigurationsQuery, { environment }, { messages: { environment: ENVIRONMENT_MESSAGE } });
    const page = intParam(ctx.query.cpage, 1);
    const filterError = errors.environment;
    await show(
      ctx,
      'configuration',
      async (v, principal) => {
        const found = query ? await configurations.list(principal, v.project._id, query.environment ? { environment: query.environment } : {}, { page, per_page: PER_PAGE }) : NOTHING;
        return configurationTab(v, { environment, filterError, configurations: { ...found, page }, ...extras });
      },
      status,
    );
  }

  return { load, show, showDeployments, showConfiguration };
}

type ProjectPage = ReturnType<typeof projectPage>;

/**
 * One project: its details and status actions above tabs that are links (each its own URL, no script):
 * deployments (filters, new deployment, status moves), configuration variables (secret values masked;
 * admins may reveal one at a time), and for admins its API keys and its activity (the audit log).
 */
export function registerProjectPage(pages: PageRouter, deps: DashboardDeps): void {
  const page = projectPage(deps);
  registerTabs(pages, deps, page);
  registerDeploymentForms(pages, deps, page);
  registerConfigurationForms(pages, deps, page);
}

function registerTabs(pages: PageRouter, deps: DashboardDeps, { show, showDeployments, showConfiguration }: ProjectPage): void {
  const { apiKeys, events, deployments } = deps.services;
  pages.get('/projects/:id', 'read', (ctx) => showDeployments(ctx));
  // docs/product.md §9: the reviews waiting in the project, then its environments (one page: no project has hundreds).
  pages.get('/projects/:id/environments', 'read', async (ctx, { principal }) => {
    await show(ctx, 'environments', async (v) => {
      const waiting = await deployments.list(principal, v.project._id, { status: 'waiting' }, { page: 1, per_page: 100 });
      const { live, release } = await releaseData(deps, principal, v.project, waiting.items);
      return environmentsTab({ project: v.project, environments: live.map((e) => e.environment), live, release, pending: [...waiting.items].reverse(), csrf: v.csrf, canWrite: v.canWrite });
    });
  });
  pages.get('/projects/:id/configuration', 'read', (ctx) => showConfiguration(ctx));
  pages.get('/projects/:id/api-keys', 'admin', async (ctx, { principal }) => {
    await show(ctx, 'api-keys', async (v) => apiKeysTab(v, await listPage(ctx, (page) => apiKeys.list(principal, v.project._id, {}, page), PER_PAGE)));
  });
  pages.get('/projects/:id/activity', 'admin', async (ctx, { principal }) => {
    await show(ctx, 'activity', async (v) => activityTab(v, await listPage(ctx, (page) => events.list(principal, { project_id: v.project._id }, page), PER_PAGE)));
  });
}

// From the deployment's own page, back to it; from the list, back to the list.
const deploymentBack = (ctx: WithParams<'id' | 'deploymentId'>, form: FormValues) =>
  str(form, 'return') === 'deployment'
    ? `${projectPath(encodeURIComponent(ctx.params.id))}/deployments/${encodeURIComponent(ctx.params.deploymentId)}`
    : `${projectPath(encodeURIComponent(ctx.params.id))}#deployments`;

function registerDeploymentForms(pages: PageRouter, deps: DashboardDeps, { load, showDeployments }: ProjectPage): void {
  const { deployments } = deps.services;

  pages.form('/projects/:id/deployments', {
    scope: 'write',
    schema: CreateDeploymentBody,
    fields: (form) => ({ environment: str(form, 'environment'), branch: str(form, 'branch'), commit_sha: str(form, 'commit_sha') || null }),
    run: async (ctx, input, { principal }) => await deployments.create(principal, (await load(ctx))._id, input),
    answer: (d) => success(`${projectPath(d.project_id)}#deployments`, `Deployment of ${d.branch} to ${d.environment} queued.`),
    refused: { fields: ['environment', 'branch', 'commit_sha'], rerender: showDeployments },
  });

  // Redeploy: the same branch and commit again in its environment, after a confirmation of what changes
  // (from the commit live there now to this deployment's).
  pages.confirm('/projects/:id/deployments/:deploymentId/redeploy', 'write', async (ctx, { principal }) => {
    const project = await load(ctx);
    const source = await deployments.get(principal, project._id, ctx.params.deploymentId);
    const environment = await deps.services.environments.get(principal, project._id, source.environment);
    const id = environment.current_deployment_id;
    const current = id ? (id === source._id ? source : await deployments.get(principal, project._id, id).catch(() => null)) : null;
    const names = await deps.services.dashboardClient.actorNames(principal.accountId, actorsOf([current, source]));
    return {
      page: `Redeploy to ${source.environment}`,
      crumb: project.name,
      title: `Redeploy to ${source.environment}?`,
      message: changeSummary({ environment: source.environment, from: current, to: source, names, now: deps.services.dashboardClient.now() }),
      action: `${projectPath(project._id)}/deployments/${source._id}/redeploy`,
      button: 'Redeploy',
      kind: 'primary',
      cancelHref: `${projectPath(project._id)}/deployments/${source._id}`,
    };
  });

  pages.form('/projects/:id/deployments/:deploymentId/redeploy', {
    scope: 'write',
    schema: RedeployBody,
    fields: () => ({}),
    run: async (ctx, input, { principal }) => await deployments.redeploy(principal, (await load(ctx))._id, ctx.params.deploymentId, input),
    answer: (d) => success(`${projectPath(d.project_id)}/deployments/${d._id}`, `Redeploy of ${d.commit_sha ? d.commit_sha.slice(0, 7) : d.branch} to ${d.environment} created (${d.status}).`),
    refused: { back: (ctx) => `${projectPath(encodeURIComponent(ctx.params.id))}/deployments/${encodeURIComponent(ctx.params.deploymentId)}`, message: 'The deployment could not be redeployed.' },
  });

  pages.form('/projects/:id/deployments/:deploymentId/status', {
    scope: 'write',
    schema: UpdateDeploymentBody,
    fields: (form) => ({ status: str(form, 'status') }),
    run: async (ctx, input, { principal }) => await deployments.updateStatus(principal, (await load(ctx))._id, ctx.params.deploymentId, { status: input.status }),
    answer: (d, ctx, { form }) => success(deploymentBack(ctx, form), `Deployment to ${d.environment} is now ${d.status}.`),
    refused: { back: deploymentBack, message: 'The status could not be changed.' },
  });
}

function registerConfigurationForms(pages: PageRouter, deps: DashboardDeps, { load, showConfiguration }: ProjectPage): void {
  const { configurations } = deps.services;

  pages.form('/projects/:id/configurations', {
    scope: 'write',
    schema: CreateConfigurationBody,
    fields: (form) => ({ environment: str(form, 'environment'), key: str(form, 'key'), value: str(form, 'value'), secret: str(form, 'secret') === 'true' }),
    // As on /v1: an archived project refuses configuration writes (409 project_not_active).
    run: (ctx, input, { principal }) => configurations.create(principal, ctx.params.id, input),
    answer: (c) => success(`${projectPath(c.project_id)}/configuration`, `${c.key} added to ${c.environment}.`),
    refused: {
      fields: ['environment', 'key', 'value', 'secret'],
      conflictField: 'key',
      // A secret value is never sent back into the page.
      keep: (form) => ({ ...form, value: str(form, 'secret') === 'true' ? '' : str(form, 'value') }),
      rerender: (ctx, form, status) => showConfiguration(ctx, { form }, status),
    },
  });

  pages.form('/projects/:id/configurations/:configId/reveal', {
    scope: 'admin',
    run: (ctx, _input, { principal }) => configurations.get(principal, ctx.params.id, ctx.params.configId, { reveal: true }),
    // Rendered in this response only (no-store); a reload shows the masked page again.
    answer: (doc, ctx) => showConfiguration(ctx, { revealed: { id: doc._id, value: doc.revealed ?? '' } }),
  });

  pages.confirm('/projects/:id/configurations/:configId/delete', 'write', async (ctx, { principal }) => {
    const doc = await configurations.get(principal, ctx.params.id, ctx.params.configId);
    const project = await load(ctx);
    return {
      page: `Delete ${doc.key}`,
      crumb: project.name,
      title: `Delete ${doc.key}?`,
      message: html`<p>This removes <code>${doc.key}</code> from the <strong>${doc.environment}</strong> environment of ${project.name}.</p>`,
      action: `${projectPath(project._id)}/configurations/${doc._id}/delete`,
      button: 'Delete variable',
      cancelHref: `${projectPath(project._id)}/configuration`,
    };
  });

  pages.form('/projects/:id/configurations/:configId/delete', {
    scope: 'write',
    run: (ctx, _input, { principal }) => configurations.delete(principal, ctx.params.id, ctx.params.configId),
    answer: (doc) => success(`${projectPath(doc.project_id)}/configuration`, `${doc.key} removed from ${doc.environment}.`),
  });
}
