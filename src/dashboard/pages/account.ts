import type Router from '@koa/router';
import type { Context } from 'koa';
import { validationFailed } from '../../errors.ts';
import { parseInput } from '../../schemas/parse.ts';
import { ChangePasswordBody, PASSWORD_MIN_LENGTH } from '../../schemas/users.ts';
import { SESSION_COOKIE } from '../../services/sessions.ts';
import { SESSION_ABSOLUTE_MS } from '../../repositories/sessions.ts';
import { sessionCookieOptions } from '../auth.ts';
import { dash, seeOther, sendPage, type DashboardDeps } from '../context.ts';
import { formProblem, refusal, str, textField, type FormState } from '../forms.ts';
import { html } from '../../lib/html.ts';
import { csrfField, dateTime } from '../layout.ts';
import { usageBars } from '../charts.ts';
import type { QuotaKind } from '../../repositories/quotaSlots.ts';

const ACCOUNT_PATH = '/dashboard/account';

const QUOTA_LABELS: Record<QuotaKind, string> = { projects: 'Projects', oauth_clients: 'OAuth apps', api_keys: 'Active API keys', webhooks: 'Webhooks', users: 'Users' };

/** Account: who you are, and changing your own password (which signs out your other sessions). */
export function registerAccountPage(router: Router, deps: DashboardDeps): void {
  const { config, sessions } = deps;

  async function render(ctx: Context, form?: FormState, status = 200) {
    const state = dash(ctx);
    const { user } = state;
    const usage = await deps.services.quotas.usage(state.principal);
    sendPage(ctx, config, {
      title: 'Account',
      active: 'account',
      status,
      body: html`<h1>Account</h1>
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
<section class="panel" aria-labelledby="quotas-title">
<h2 id="quotas-title">Quotas</h2>
${usageBars({ id: 'quota-usage', title: 'Use of each quota', bars: usage.map((q) => ({ key: q.kind, label: QUOTA_LABELS[q.kind], used: q.used, limit: q.limit })) })}
<div class="table-wrap"><table class="list">
<thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Limit</th></tr></thead>
<tbody>
${usage.map((q) => html`<tr data-quota="${q.kind}"><td>${QUOTA_LABELS[q.kind]}</td><td>${q.used}</td><td>${q.limit}</td></tr>`)}
<tr data-quota="requests_per_hour"><td>API requests per hour (all credentials)</td><td>—</td><td>${config.accountRequestsPerHour}</td></tr>
</tbody>
</table></div>
<p class="hint">Set by the operator. Past a quota, creating is refused with <code>quota_exceeded</code>; past the request budget, requests get <code>rate_limited</code>.</p>
</section>
<section class="panel" aria-labelledby="password-title">
<h2 id="password-title">Change password</h2>
${formProblem(form, { current_password: 'Current password', new_password: 'New password', confirm_password: 'Confirm new password' })}
<form method="post" action="${ACCOUNT_PATH}/password" novalidate>
${csrfField(state.viewer.csrf)}
<input type="text" name="username" value="${user.email}" autocomplete="username" hidden>
${textField({ form: 'pw', name: 'current_password', label: 'Current password', type: 'password', state: form, required: true, autocomplete: 'current-password' })}
${textField({ form: 'pw', name: 'new_password', label: 'New password', type: 'password', state: form, required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
${textField({ form: 'pw', name: 'confirm_password', label: 'Confirm new password', type: 'password', state: form, required: true, autocomplete: 'new-password' })}
<div class="form-actions"><button type="submit">Change password</button></div>
<p class="hint">Your other dashboard sessions are signed out; this one stays signed in.</p>
</form>
</section>`,
    });
  }

  router.get('/account', async (ctx) => await render(ctx));

  router.post('/account/password', async (ctx) => {
    const state = dash(ctx);
    const form = state.form;
    try {
      const next = str(form, 'new_password');
      if (next && next !== str(form, 'confirm_password')) throw validationFailed([{ field: 'confirm_password', message: 'does not match the new password' }]);
      await deps.services.users.changeOwnPassword(state.principal, parseInput(ChangePasswordBody, { current_password: str(form, 'current_password'), new_password: next }));
    } catch (err) {
      const refused = refusal(err, { fields: ['current_password', 'new_password', 'confirm_password'] });
      if (!refused) throw err;
      return await render(ctx, { values: {}, ...refused }, refused.status);
    }
    // The service ended the user's other sessions and grants (anyone who knew the old password is out);
    // this browser's session is replaced by a new one too.
    await sessions.revokeForUser(state.user._id);
    const { token } = await sessions.create(state.user._id, state.user.account_id);
    ctx.cookies.set(SESSION_COOKIE, token, { ...sessionCookieOptions(config), maxAge: SESSION_ABSOLUTE_MS });
    ctx.state.log?.info({ user_id: state.user._id }, 'password changed in the dashboard; other sessions ended');
    seeOther(ctx, config, ACCOUNT_PATH, { kind: 'success', text: 'Password changed. Your other sessions were signed out.' });
  });
}
