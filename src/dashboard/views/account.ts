import { html, type Html } from '../../lib/html.ts';
import { PASSWORD_MIN_LENGTH } from '../../schemas/users.ts';
import type { QuotaKind } from '../../services/quotas.ts';
import type { UserDoc } from '../../services/users.ts';
import { usageBars } from '../charts.ts';
import { formProblem, textField, type FormState } from '../forms.ts';
import { csrfField, dateTime } from '../layout.ts';

export const ACCOUNT_PATH = '/dashboard/account';

const QUOTA_LABELS: Record<QuotaKind, string> = { projects: 'Projects', oauth_clients: 'OAuth apps', api_keys: 'Active API keys', webhooks: 'Webhooks', users: 'Users' };

export interface AccountView {
  csrf: string;
  user: UserDoc;
  usage: { kind: QuotaKind; used: number; limit: number }[];
  requestsPerHour: number;
  /** The person's accounts (docs/product.md §11); the one this session is in is `current`. */
  memberships: { accountId: string; name: string; role: string; current: boolean }[];
  /** The password form after a refusal (no values are sent back). */
  form?: FormState | undefined;
}

function quotas(v: AccountView): Html {
  return html`<section class="panel" aria-labelledby="quotas-title">
<h2 id="quotas-title">Quotas</h2>
${usageBars({ id: 'quota-usage', title: 'Use of each quota', bars: v.usage.map((q) => ({ key: q.kind, label: QUOTA_LABELS[q.kind], used: q.used, limit: q.limit })) })}
<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Limit</th></tr></thead>
<tbody>
${v.usage.map((q) => html`<tr data-quota="${q.kind}"><td>${QUOTA_LABELS[q.kind]}</td><td>${q.used}</td><td>${q.limit}</td></tr>`)}
<tr data-quota="requests_per_hour"><td>API requests per hour (all credentials)</td><td>—</td><td>${v.requestsPerHour}</td></tr>
</tbody>
</table></div>
<p class="hint">Set by the operator. Past a quota, creating is refused with <code>quota_exceeded</code>; past the request budget, requests get <code>rate_limited</code>.</p>
</section>`;
}

/** The account switcher: this session acts in one account; another is a sign-in to it (password again). */
function switcher(v: AccountView): Html {
  if (v.memberships.length < 2) return html``;
  return html`<section class="panel" aria-labelledby="accounts-title">
<h2 id="accounts-title">Your accounts</h2>
<ul class="accounts">
${v.memberships.map((m) =>
  m.current
    ? html`<li>${m.name} <span class="muted">(${m.role}, this session)</span></li>`
    : html`<li><form method="post" action="/dashboard/logout" class="inline">${csrfField(v.csrf)}<input type="hidden" name="switch_to" value="${m.accountId}"><button type="submit" class="secondary small">Switch to ${m.name}</button></form> <span class="muted">(${m.role})</span></li>`,
)}
</ul>
<p class="hint">Switching signs you out here and in to that account (your password again).</p>
</section>`;
}

function passwordForm(v: AccountView): Html {
  const { form } = v;
  return html`<section class="panel" aria-labelledby="password-title">
<h2 id="password-title">Change password</h2>
${formProblem(form, { current_password: 'Current password', new_password: 'New password', confirm_password: 'Confirm new password' })}
<form method="post" action="${ACCOUNT_PATH}/password" novalidate>
${csrfField(v.csrf)}
<input type="text" name="username" value="${v.user.email}" autocomplete="username" hidden>
${textField({ form: 'pw', name: 'current_password', label: 'Current password', type: 'password', state: form, required: true, autocomplete: 'current-password' })}
${textField({ form: 'pw', name: 'new_password', label: 'New password', type: 'password', state: form, required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
${textField({ form: 'pw', name: 'confirm_password', label: 'Confirm new password', type: 'password', state: form, required: true, autocomplete: 'new-password' })}
<div class="form-actions"><button type="submit">Change password</button></div>
<p class="hint">Your other dashboard sessions are signed out; this one stays signed in.</p>
</form>
</section>`;
}

/** Account: who you are, the account's quotas, and changing your own password. */
export function accountView(v: AccountView): Html {
  const { user } = v;
  return html`<h1>Account</h1>
<section class="panel" aria-labelledby="me-title">
<h2 id="me-title">You</h2>
<dl class="props">
<dt>Name</dt><dd>${user.name}</dd>
<dt>Email</dt><dd>${user.email}</dd>
<dt>Role</dt><dd>${user.role}</dd>
<dt>Account</dt><dd><code>${user.account_id}</code></dd>
<dt>Member since</dt><dd>${dateTime(user.created_at)}</dd>
</dl>
</section>
${switcher(v)}
${quotas(v)}
${passwordForm(v)}`;
}
