import { html, join, pageHead, type Html } from '../lib/html.ts';

// The authorization server's pages: sign-in, consent, messages and errors.

function layout(title: string, body: Html): string {
  return html`${pageHead({ title, stylesheets: ['/assets/slipway.css'] })}
<body>
<main class="card">
<p class="brand" aria-hidden="true">Slipway</p>
${body}
</main>
</body>
</html>`.value;
}

export interface LoginView {
  action: string;
  clientName: string;
  email?: string;
  error?: string;
  /** A message from the step before (e.g. "Your password is set — sign in."). */
  notice?: string;
}

export function renderLogin({ action, clientName, email, error, notice }: LoginView): string {
  // With the email already filled in (after setting a password), the cursor starts in the password.
  const focusPassword = Boolean(email) && !error;
  const invalid = error ? html` aria-describedby="login-error" aria-invalid="true"` : '';
  return layout(
    'Sign in',
    html`<h1>Sign in</h1>
<p>to continue to <strong>${clientName}</strong></p>
${notice && !error ? html`<p class="notice" role="status">${notice}</p>` : ''}
${error ? html`<p class="error" role="alert" id="login-error">${error}</p>` : ''}
<form method="post" action="${action}" novalidate>
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required${focusPassword ? '' : html` autofocus`} value="${email}"${invalid}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required${focusPassword ? html` autofocus` : ''}${invalid}>
  <button type="submit">Sign in</button>
</form>`,
  );
}

const SCOPE_TEXT: Record<string, string> = {
  read: 'Read your projects, deployments and configuration',
  write: 'Create and change projects, deployments and configuration',
  admin: 'Administer your account: delete projects, reveal secrets, manage users and keys',
  openid: 'Know who you are',
  offline_access: 'Stay signed in when you are not using it',
};

export interface ConsentView {
  action: string;
  denyAction: string;
  clientName: string;
  userEmail: string;
  scopes: string[];
}

export function renderConsent({ action, denyAction, clientName, userEmail, scopes }: ConsentView): string {
  const items = scopes.length
    ? join(scopes.map((s) => html`<li><code>${s}</code> — ${SCOPE_TEXT[s] ?? s}</li>`), '\n')
    : html`<li>No additional permissions</li>`;
  return layout(
    'Authorize access',
    html`<h1>Authorize ${clientName}</h1>
<p><strong>${clientName}</strong> asks to act for <strong>${userEmail}</strong> with these permissions:</p>
<ul class="scopes">
${items}
</ul>
<div class="actions">
  <form method="post" action="${action}"><button type="submit" name="decision" value="allow">Allow</button></form>
  <form method="post" action="${denyAction}"><button type="submit" class="secondary" name="decision" value="deny">Deny</button></form>
</div>`,
  );
}

export function renderMessage(title: string, message: string): string {
  return layout(title, html`<h1>${title}</h1>\n<p>${message}</p>`);
}

export function renderErrorPage(out: Record<string, string | undefined>): string {
  const description =
    out.error === 'server_error'
      ? 'Something went wrong on our side. Please try again.'
      : (out.error_description ?? 'The request could not be completed.');
  return layout(
    'Sign-in problem',
    html`<h1>We could not complete this request</h1>
<p role="alert">${description}</p>
<p class="muted">Error code: <code>${out.error ?? 'error'}</code>. Return to the application and try again.</p>`,
  );
}

export const STYLESHEET = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#f5f6f8;--card:#fff;--muted:#5b6470;--accent:#1f5fd1;--on-accent:#fff;--err:#b42318;--border:#d0d5dd;--input-border:#6b7480}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#111418;--card:#1a1f25;--muted:#9aa4b0;--accent:#6ea1ff;--on-accent:#0b1220;--err:#ff8a80;--border:#353c45;--input-border:#8b95a1}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
.card{max-width:26rem;margin:2rem auto;padding:1.5rem;background:var(--card);border:1px solid var(--border);border-radius:.75rem}
.brand{font-weight:700;color:var(--accent);margin:0 0 .5rem}h1{font-size:1.4rem;margin:.25rem 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}input{width:100%;padding:.6rem;font:inherit;border:1px solid var(--input-border);border-radius:.4rem;background:transparent;color:inherit}
button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;font-weight:600;border:0;border-radius:.4rem;background:var(--accent);color:var(--on-accent);cursor:pointer}
button.secondary{background:transparent;color:var(--fg);border:1px solid var(--input-border)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}.error{color:var(--err);font-weight:600}.notice{padding:.5rem .75rem;border:1px solid var(--border);border-left:4px solid #1a7f37;border-radius:.4rem}.muted{color:var(--muted)}
.actions{display:flex;gap:.75rem;flex-wrap:wrap}.scopes{padding-left:1.2rem}code{font-size:.95em}
@media (max-width:480px){.card{margin:0;border-radius:0;border-width:0 0 1px}}
`;
