import type { Role } from '../../domain/principal.ts';
import { html, type Html } from '../../lib/html.ts';
import { PASSWORD_MIN_LENGTH } from '../../schemas/users.ts';
import type { UserDoc } from '../../services/users.ts';
import { choiceGroup, formProblem, newOnce, selectField, textField, type FormState } from '../forms.ts';
import { csrfField, dateTime, pagination, secretReveal } from '../layout.ts';

export const USERS_PATH = '/dashboard/settings/users';
export const IF_LINK_LOST = 'if it is lost, remove the user and add them again.';
const CREDENTIAL_OPTIONS = [
  { value: 'password', label: 'Set their password now' },
  { value: 'link', label: 'Send them a setup link' },
] as const;

export interface UsersView {
  csrf: string;
  /** The signed-in user (marked "(you)"). */
  me: string;
  isAdmin: boolean;
  /** The roles the viewer may give a new user. */
  addRoles: readonly Role[];
  /** Per user, the roles the viewer may give them (the policy's owner rules); none: the role is shown, not offered. */
  roleChoices: ReadonlyMap<string, readonly Role[]>;
  /** The users the viewer may remove. */
  removable: ReadonlySet<string>;
  items: UserDoc[];
  page: number;
  total: number;
  /** The Add form as sent, after a refusal. */
  form?: FormState | undefined;
}

function addUserForm(v: UsersView): Html {
  const state = v.form ?? { values: { role: 'developer', credential: 'password' }, errors: {} };
  return html`<section class="panel" aria-labelledby="add-user-title">
<h2 id="add-user-title">Add a user</h2>
${formProblem(v.form, { email: 'Email', name: 'Name', role: 'Role', credential: 'How they sign in', password: 'Initial password' })}
<form method="post" action="${USERS_PATH}" class="add-user" novalidate>
${csrfField(v.csrf)}
<input type="hidden" name="_once" value="${newOnce()}">
<div class="form-grid">
${textField({ form: 'user', name: 'email', label: 'Email', type: 'email', state, required: true, autocomplete: 'off' })}
${textField({ form: 'user', name: 'name', label: 'Name', state, required: true, maxlength: 100 })}
${selectField({ form: 'user', name: 'role', label: 'Role', state, options: v.addRoles.map((r) => ({ value: r, label: r })), hint: 'viewer: read · developer: write · admin and owner: everything.' })}
</div>
${choiceGroup({
  form: 'user',
  name: 'credential',
  label: 'How they sign in',
  type: 'radio',
  state,
  options: CREDENTIAL_OPTIONS,
  hint: 'Either way you get an invitation link on the next page (it works once, for 7 days); they open it to accept. A password set here is used only if they are new to Slipway.',
})}
<div class="form-grid"><div class="password-only">
${textField({ form: 'user', name: 'password', label: 'Initial password', type: 'password', state, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN_LENGTH} characters. Give it to them in person; they can change it under Account. Not used with a setup link.` })}
</div></div>
<div class="form-actions"><button type="submit">Add user</button></div>
</form>
</section>`;
}

function roleCell(v: UsersView, u: UserDoc): Html {
  const choices = v.roleChoices.get(u._id) ?? [];
  if (choices.length < 2) return html`${u.role}`;
  return html`<form method="post" action="${USERS_PATH}/${u._id}/role" class="inline">
${csrfField(v.csrf)}
<label for="role-${u._id}" class="visually-hidden">Role of ${u.email}</label>
<select id="role-${u._id}" name="role">${choices.map((r) => html`<option value="${r}"${r === u.role ? html` selected` : ''}>${r}</option>`)}</select>
<button type="submit" class="secondary small" aria-label="Change role of ${u.email}">Change</button>
</form>`;
}

function userTable(v: UsersView): Html {
  return html`<div class="table-wrap"><table class="list stack">
<thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Last sign-in</th>${v.isAdmin ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>
${v.items.map(
  (u) => html`<tr>
<td data-label="Name">${u.name}${u._id === v.me ? html` <span class="muted">(you)</span>` : ''}</td>
<td data-label="Email">${u.email}</td>
<td data-label="Role">${roleCell(v, u)}${u.status === 'invited' ? html` <span class="muted">(invited)</span>` : ''}</td>
<td data-label="Last sign-in">${dateTime(u.last_login_at)}</td>
${v.isAdmin ? html`<td data-label="Actions">${v.removable.has(u._id) ? html`<a href="${USERS_PATH}/${u._id}/remove" aria-label="Remove ${u.email}…">Remove…</a>` : ''}</td>` : ''}
</tr>`,
)}
</tbody></table></div>`;
}

/** Settings › Users: the Add form (admins), then the account's people with role changes and removal. */
export function usersView(v: UsersView): Html {
  return html`<p class="crumb">Settings</p>
<h1>Users</h1>
${v.isAdmin ? addUserForm(v) : html`<p class="muted">Only admins and owners can add, change or remove users.</p>`}
<section class="panel" aria-labelledby="users-title">
<h2 id="users-title">People in this account</h2>
${userTable(v)}
${pagination(v.page, 20, v.total, (n) => `${USERS_PATH}?page=${n}`)}
</section>`;
}

/** The page that shows a new user's invitation link, once. */
export function invitationLinkView(user: UserDoc, link: string, expiresAt: Date): Html {
  return html`<p class="crumb">Settings › Users</p>
<h1>User invited</h1>
<p><strong>${user.email}</strong> is invited as ${user.role}. Send them this link: with it they sign in (or, new to Slipway, choose a password) and accept. It works once, until ${dateTime(expiresAt)}.</p>
${secretReveal('invitation-link', `Invitation link for ${user.email}`, link, IF_LINK_LOST)}
<p><a href="${USERS_PATH}">Back to users</a></p>`;
}
