import { html, type Html } from '../../lib/html.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../schemas/users.ts';
import type { OpenInvitation } from '../../services/invitations.ts';
import { formProblem, textField, type FormState } from '../forms.ts';
import { dateTime } from '../layout.ts';
import { linkHiddenFields } from './setup.ts';

export const INVITATION_PATH = '/dashboard/invitation';
export const INVALID_INVITATION_LINK = 'This invitation is invalid, already answered, revoked or expired. Ask an administrator of the account for a new one.';
const FIELD_LABELS = { password: 'Password' };

/** Malformed, unknown, expired, revoked or answered: one answer, no details. */
export const invalidInvitationView = (): Html =>
  html`<div class="narrow"><h1>Invitation not valid</h1><p class="problem">${INVALID_INVITATION_LINK}</p><p><a href="/dashboard/login">Sign in</a></p></div>`;

export interface InvitationFormView extends OpenInvitation {
  token: string;
  /** This browser's double-submit value. */
  csrf: string;
  form?: FormState | undefined;
}

/**
 * The invited person signs in with the invited address's password (or, new to Slipway, chooses one: the
 * same field, so the page itself tells nobody whether the address signs in) and accepts or declines.
 */
export function invitationFormView(o: InvitationFormView): Html {
  return html`<div class="narrow">
<h1>Join ${o.accountName}</h1>
<p>You are invited to the Slipway account <strong>${o.accountName}</strong> as <strong>${o.user.role}</strong>, signing in as <strong>${o.user.email}</strong>.</p>
<p class="muted">This invitation works once, until ${dateTime(o.expiresAt)}.</p>
<div class="panel">
${formProblem(o.form, FIELD_LABELS)}
<form method="post" action="${INVITATION_PATH}" novalidate>
${linkHiddenFields(o.token, o.csrf, o.user.email)}
${textField({
  form: 'invitation',
  name: 'password',
  label: FIELD_LABELS.password,
  type: 'password',
  state: o.form,
  autocomplete: 'current-password',
  maxlength: PASSWORD_MAX_LENGTH,
  hint: `Your Slipway password. New to Slipway? The password you choose now (at least ${PASSWORD_MIN_LENGTH} characters), or the one the person who invited you gave you.`,
})}
<div class="form-actions"><button type="submit" name="decision" value="accept">Accept</button> <button type="submit" name="decision" value="decline" class="secondary">Decline</button></div>
</form>
</div>
</div>`;
}

export const declinedView = (accountName: string): Html =>
  html`<div class="narrow"><h1>Invitation declined</h1><p>You declined to join ${accountName}. Nothing else changed.</p></div>`;
