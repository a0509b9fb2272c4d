import { html, type Html } from '../../lib/html.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../schemas/users.ts';
import type { UserDoc } from '../../services/users.ts';
import { formProblem, textField, type FormState } from '../forms.ts';
import { csrfField, dateTime } from '../layout.ts';

export const SETUP_PATH = '/dashboard/setup';
export const INVALID_LINK = 'This setup link is invalid or has expired. Ask an administrator for a new one.';
const FIELD_LABELS = { password: 'New password', confirm_password: 'Confirm new password' };

/** Malformed, unknown, expired or used: one answer, no details. */
export const invalidLinkView = (): Html =>
  html`<div class="narrow"><h1>Setup link not valid</h1><p class="problem">${INVALID_LINK}</p><p>Already chose your password? <a href="/dashboard/login">Sign in</a>.</p></div>`;

/**
 * The hidden fields of a one-time link's form (setup, invitation): the token (never in the URL), the
 * CSRF value, and the address for password managers.
 */
export const linkHiddenFields = (token: string, csrf: string, email: string): Html =>
  html`<input type="hidden" name="token" value="${token}">
${csrfField(csrf)}
<input type="text" name="username" value="${email}" autocomplete="username" hidden>`;

export interface SetupFormView {
  token: string;
  user: UserDoc;
  expiresAt: Date;
  /** This browser's double-submit value. */
  csrf: string;
  form?: FormState | undefined;
}

/** The new user chooses their password (the token travels in a hidden field, never in the URL). */
export function setupFormView(o: SetupFormView): Html {
  const password = { type: 'password', state: o.form, required: true, autocomplete: 'new-password', minlength: PASSWORD_MIN_LENGTH, maxlength: PASSWORD_MAX_LENGTH };
  return html`<div class="narrow">
<h1>Set your password</h1>
<p>Welcome to Slipway, <strong>${o.user.name}</strong>. Choose the password you will sign in with as <strong>${o.user.email}</strong>.</p>
<p class="muted">This link works once, until ${dateTime(o.expiresAt)}.</p>
<div class="panel">
${formProblem(o.form, FIELD_LABELS)}
<form method="post" action="${SETUP_PATH}" novalidate>
${linkHiddenFields(o.token, o.csrf, o.user.email)}
${textField({ form: 'setup', name: 'password', label: FIELD_LABELS.password, ...password, hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
${textField({ form: 'setup', name: 'confirm_password', label: FIELD_LABELS.confirm_password, ...password })}
<div class="form-actions"><button type="submit">Set password</button></div>
</form>
</div>
</div>`;
}
