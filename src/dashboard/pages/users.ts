import type { Context } from 'koa';
import { can } from '../../domain/policy.ts';
import { ROLES, type Role } from '../../domain/principal.ts';
import { validationFailed } from '../../errors.ts';
import { hasScope } from '../../http/requireScope.ts';
import { html } from '../../lib/html.ts';
import { invitationLinkUrl } from '../../presenters/users.ts';
import { CreateUserBody, UpdateUserBody } from '../../schemas/users.ts';
import type { UserDoc } from '../../services/users.ts';
import { dash, sendPage, type DashboardDeps } from '../context.ts';
import { listPage, str, type FormState, type FormValues } from '../forms.ts';
import { success, type PageRouter } from '../pageRouter.ts';
import { IF_LINK_LOST, invitationLinkView, USERS_PATH, usersView } from '../views/users.ts';

const ALREADY_SUBMITTED = `That form was already submitted. An invitation link is shown only once; ${IF_LINK_LOST}`;
const back = () => USERS_PATH;

/** The Add form as CreateUserBody: with a first password for a new person, or without one (they choose it). */
function addUserFields(form: FormValues) {
  const withLink = str(form, 'credential') === 'link';
  if (!withLink && !str(form, 'password')) throw validationFailed([{ field: 'password', message: 'enter an initial password, or choose a setup link' }]);
  // With a setup link, a password typed before switching is ignored.
  return { email: str(form, 'email'), name: str(form, 'name'), role: str(form, 'role'), ...(withLink ? {} : { password: str(form, 'password') }) };
}

/**
 * Settings > Users: the account's people (anyone may see them, as with GET /v1/users); admins invite one
 * (the invitation link shown once in the POST response, as new API keys are; optionally with a first
 * password for a person new to Slipway), change a role, remove someone. The rules (owners only for owner changes, never without an
 * owner) are the service's.
 */
export function registerUserPages(pages: PageRouter, deps: DashboardDeps): void {
  const { config } = deps;
  const { users } = deps.services;

  async function showList(ctx: Context, form?: FormState, status = 200) {
    const { principal, viewer, user } = dash(ctx);
    const { items, total, page } = await listPage(ctx, (request) => users.list(principal, request));
    const isAdmin = hasScope(principal, 'admin');
    // What the page offers is what the policy allows (an admin cannot give or take the owner role).
    const allowed = (action: 'change_role' | 'delete', u: UserDoc, to?: Role) => isAdmin && can(principal, action, 'user', { ...u, to });
    const roleChoices = new Map(items.map((u) => [u._id, ROLES.filter((r) => r === u.role || allowed('change_role', u, r))] as const));
    const removable = new Set(items.filter((u) => allowed('delete', u)).map((u) => u._id));
    const addRoles = ROLES.filter((role) => can(principal, 'create', 'user', { account_id: principal.accountId, role }));
    const view = { csrf: viewer.csrf, me: user._id, isAdmin, roleChoices, removable, addRoles, items, page, total, form };
    sendPage(ctx, config, { title: 'Users', status, body: usersView(view) });
  }

  pages.get('/settings/users', 'read', (ctx) => showList(ctx));

  pages.form('/settings/users', {
    scope: 'admin',
    // The answer shows the invitation link: a re-post (reload, double click) adds nobody and shows nothing.
    once: { back, message: ALREADY_SUBMITTED },
    schema: CreateUserBody,
    fields: addUserFields,
    run: (_ctx, input, { principal }) => users.create(principal, input),
    answer: ({ user, invitation }, ctx) => {
      if (!invitation) return success(USERS_PATH, `${user.email} invited as ${user.role}.`);
      ctx.state.log?.info({ user_id: user._id }, 'user invited in the dashboard');
      sendPage(ctx, config, { title: 'User invited', body: invitationLinkView(user, invitationLinkUrl(config.publicUrl, invitation.token), invitation.expiresAt) });
    },
    refused: { fields: ['email', 'name', 'role', 'password'], conflictField: 'email', keep: (form) => ({ ...form, password: '' }), rerender: showList },
  });

  pages.form('/settings/users/:id/role', {
    scope: 'admin',
    schema: UpdateUserBody,
    fields: (form) => ({ role: str(form, 'role') }),
    // The new role applies to their next request on this instance (the service drops their cached
    // sessions; other instances: within 30 s).
    run: (ctx, input, { principal }) => users.update(principal, ctx.params.id, input),
    answer: (user) => success(USERS_PATH, `${user.email} is now ${user.role}.`),
    refused: { back, message: 'The role could not be changed.' },
  });

  pages.confirm('/settings/users/:id/remove', 'admin', async (ctx, { principal }) => {
    const user = await users.get(principal, ctx.params.id);
    return {
      page: `Remove ${user.email}`,
      crumb: 'Settings › Users',
      title: `Remove ${user.email}?`,
      message: html`<p>${user.name} loses access at once: their dashboard sessions end and the tokens of apps acting for them stop working.</p>`,
      action: `${USERS_PATH}/${user._id}/remove`,
      button: 'Remove user',
      cancelHref: USERS_PATH,
    };
  });

  pages.form('/settings/users/:id/remove', {
    scope: 'admin',
    // Also ends their grants, tokens and dashboard sessions, on this instance at once.
    run: (ctx, _input, { principal }) => users.delete(principal, ctx.params.id),
    answer: ({ user }, _ctx, state) => (user._id === state.user._id ? { to: '/dashboard/signed-out' } : success(USERS_PATH, `${user.email} removed.`)),
    refused: { back, message: 'The user could not be removed.' },
  });
}
