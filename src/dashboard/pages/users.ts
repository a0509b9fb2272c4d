import type Router from '@koa/router';
import type { Context } from 'koa';
import { assertScope, hasScope } from '../../http/requireScope.ts';
import { validationFailed } from '../../errors.ts';
import { type UserDoc } from '../../repositories/users.ts';
import { ROLES } from '../../domain/principal.ts';
import { setupLinkUrl } from '../../presenters/users.ts';
import type { IssuedSetupToken } from '../../services/users.ts';
import { parseInput } from '../../schemas/parse.ts';
import { CreateUserBody, PASSWORD_MIN_LENGTH, UpdateUserBody } from '../../schemas/users.ts';
import { claimOnce, dash, newOnce, seeOther, sendPage, type DashboardDeps, type DashboardState, dashWith } from '../context.ts';
import { choiceGroup, formProblem, intParam, refusal, selectField, str, textField, type FormState } from '../forms.ts';
import { html } from '../../lib/html.ts';
import { confirmBody, csrfField, dateTime, pagination, secretReveal } from '../layout.ts';

const USERS_PATH = '/dashboard/settings/users';
const ROLE_OPTIONS = ROLES.map((r) => ({ value: r, label: r }));
const CREDENTIAL_OPTIONS = [
  { value: 'password', label: 'Set their password now' },
  { value: 'link', label: 'Send them a setup link' },
] as const;
const IF_LINK_LOST = 'if it is lost, remove the user and add them again.';
const ALREADY_SUBMITTED = `That form was already submitted. A setup link is shown only once; ${IF_LINK_LOST}`;

/**
 * Settings > Users: the account's people (anyone may see them, as with GET /v1/users); admins add one
 * (with an initial password, or a one-time setup link shown once in the POST response, as new API keys
 * are), change a role, remove someone. The rules (owners only for owner changes, never without an
 * owner) are the service's.
 */
export function registerUserPages(router: Router, deps: DashboardDeps): void {
  const { config, repos } = deps;
  const { users } = deps.services;

  const manage = (ctx: Context): DashboardState => dashWith(ctx, 'admin');

  async function renderList(ctx: Context, form?: FormState, status = 200) {
    const state = dash(ctx);
    const page = intParam(ctx.query.page, 1);
    const { items, total } = await users.list(state.principal, { page, per_page: 20 });
    const addState = form ?? { values: { role: 'developer', credential: 'password' }, errors: {} };
    const isAdmin = hasScope(state.principal, 'admin');
    sendPage(ctx, config, {
      title: 'Users',
      active: 'users',
      status,
      body: html`<p class="crumb">Settings</p>
<h1>Users</h1>
${
  isAdmin
    ? html`<section class="panel" aria-labelledby="add-user-title">
<h2 id="add-user-title">Add a user</h2>
${formProblem(form, { email: 'Email', name: 'Name', role: 'Role', credential: 'How they sign in', password: 'Initial password' })}
<form method="post" action="${USERS_PATH}" class="add-user" novalidate>
${csrfField(state.viewer.csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
<div class="form-grid">
${textField({ form: 'user', name: 'email', label: 'Email', type: 'email', state: addState, required: true, autocomplete: 'off' })}
${textField({ form: 'user', name: 'name', label: 'Name', state: addState, required: true, maxlength: 100 })}
${selectField({ form: 'user', name: 'role', label: 'Role', state: addState, options: ROLE_OPTIONS, hint: 'viewer: read · developer: write · admin and owner: everything.' })}
</div>
${choiceGroup({
  form: 'user',
  name: 'credential',
  label: 'How they sign in',
  type: 'radio',
  state: addState,
  options: CREDENTIAL_OPTIONS,
  hint: 'A setup link works once, for 24 hours: you get it on the next page, send it to them, and they choose their own password.',
})}
<div class="form-grid"><div class="password-only">
${textField({ form: 'user', name: 'password', label: 'Initial password', type: 'password', state: addState, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN_LENGTH} characters. Give it to them in person; they can change it under Account. Not used with a setup link.` })}
</div></div>
<div class="form-actions"><button type="submit">Add user</button></div>
</form>
</section>`
    : html`<p class="muted">Only admins and owners can add, change or remove users.</p>`
}
<section class="panel" aria-labelledby="users-title">
<h2 id="users-title">People in this account</h2>
<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Last sign-in</th>${isAdmin ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>
${items.map(
  (u) => html`<tr>
<td data-label="Name">${u.name}${u._id === state.user._id ? html` <span class="muted">(you)</span>` : ''}</td>
<td data-label="Email">${u.email}</td>
<td data-label="Role">${
    isAdmin
      ? html`<form method="post" action="${USERS_PATH}/${u._id}/role" class="inline">
${csrfField(state.viewer.csrf)}
<label for="role-${u._id}" class="visually-hidden">Role of ${u.email}</label>
<select id="role-${u._id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === u.role ? html` selected` : ''}>${r}</option>`)}</select>
<button type="submit" class="secondary small" aria-label="Change role of ${u.email}">Change</button>
</form>`
      : u.role
  }</td>
<td data-label="Last sign-in">${dateTime(u.last_login_at)}</td>
${isAdmin ? html`<td data-label="Actions"><a href="${USERS_PATH}/${u._id}/remove" aria-label="Remove ${u.email}…">Remove…</a></td>` : ''}
</tr>`,
)}
</tbody></table></div>
${pagination(page, 20, total, (n) => `${USERS_PATH}?page=${n}`)}
</section>`,
    });
  }

  router.get('/settings/users', async (ctx) => {
    assertScope(dash(ctx).principal, 'read');
    await renderList(ctx);
  });

  /** The page that shows a new user's setup link, once (the POST response itself; pages are no-store). */
  function renderSetupLink(ctx: Context, user: UserDoc, setup: IssuedSetupToken) {
    sendPage(ctx, config, {
      title: 'User added',
      active: 'users',
      body: html`<p class="crumb">Settings › Users</p>
<h1>User added</h1>
<p><strong>${user.email}</strong> was added as ${user.role}. Send them this link: with it they choose their password, then sign in. It works once, until ${dateTime(setup.expiresAt)}.</p>
${secretReveal('setup-link', `Setup link for ${user.email}`, setupLinkUrl(config.publicUrl, setup.token), IF_LINK_LOST)}
<p><a href="${USERS_PATH}">Back to users</a></p>`,
    });
  }

  router.post('/settings/users', async (ctx) => {
    const state = manage(ctx);
    const form = state.form;
    // The answer may show a setup link: a re-post (reload, double click) adds nobody and shows nothing.
    const once = await claimOnce(repos, state, form._once);
    if (!once) return seeOther(ctx, config, USERS_PATH, { kind: 'error', text: ALREADY_SUBMITTED });
    try {
      const withLink = str(form, 'credential') === 'link';
      if (!withLink && !str(form, 'password')) throw validationFailed([{ field: 'password', message: 'enter an initial password, or choose a setup link' }]);
      const input = parseInput(CreateUserBody, {
        email: str(form, 'email'),
        name: str(form, 'name'),
        role: str(form, 'role'),
        // With a setup link, a password typed before switching is ignored.
        ...(withLink ? {} : { password: str(form, 'password') }),
      });
      const { user, setup } = await users.create(state.principal, input);
      await once.succeeded();
      if (!setup) return seeOther(ctx, config, USERS_PATH, { kind: 'success', text: `${user.email} added as ${user.role}.` });
      ctx.state.log?.info({ user_id: user._id }, 'user added in the dashboard with a setup link');
      renderSetupLink(ctx, user, setup);
    } catch (err) {
      await once.failed();
      const refused = refusal(err, { fields: ['email', 'name', 'role', 'password'], conflictField: 'email' });
      if (!refused) throw err;
      await renderList(ctx, { values: { ...form, password: '' }, ...refused }, refused.status);
    }
  });

  router.post('/settings/users/:id/role', async (ctx) => {
    const state = manage(ctx);
    try {
      // The new role applies to their next request on this instance (the service drops their cached
      // sessions; other instances: within 30 s).
      const user = await users.update(state.principal, ctx.params.id!, parseInput(UpdateUserBody, { role: str(state.form, 'role') }));
      seeOther(ctx, config, USERS_PATH, { kind: 'success', text: `${user.email} is now ${user.role}.` });
    } catch (err) {
      const refused = refusal(err, { fields: [] });
      if (!refused) throw err;
      seeOther(ctx, config, USERS_PATH, { kind: 'error', text: refused.message ?? 'The role could not be changed.' });
    }
  });

  router.get('/settings/users/:id/remove', async (ctx) => {
    const state = manage(ctx);
    const user = await users.get(state.principal, ctx.params.id!);
    sendPage(ctx, config, {
      title: `Remove ${user.email}`,
      active: 'users',
      body: confirmBody({
        crumb: 'Settings › Users',
        title: `Remove ${user.email}?`,
        message: html`<p>${user.name} loses access at once: their dashboard sessions end and the tokens of apps acting for them stop working.</p>`,
        action: `${USERS_PATH}/${user._id}/remove`,
        button: 'Remove user',
        cancelHref: USERS_PATH,
        csrf: state.viewer.csrf,
      }),
    });
  });

  router.post('/settings/users/:id/remove', async (ctx) => {
    const state = manage(ctx);
    try {
      // Also ends their grants, tokens and dashboard sessions, on this instance at once.
      const { user } = await users.delete(state.principal, ctx.params.id!);
      if (user._id === state.user._id) return seeOther(ctx, config, '/dashboard/signed-out');
      seeOther(ctx, config, USERS_PATH, { kind: 'success', text: `${user.email} removed.` });
    } catch (err) {
      const refused = refusal(err, { fields: [] });
      if (!refused) throw err;
      seeOther(ctx, config, USERS_PATH, { kind: 'error', text: refused.message ?? 'The user could not be removed.' });
    }
  });
}
