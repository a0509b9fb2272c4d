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

export interface ChooserView {
  action: string;
  clientName: string;
  email: string;
  accounts: { accountId: string; name: string; role: string }[];
}

/** The account chooser (docs/product.md §11): one submit button per account, `name="account"`. */
export function renderChooser({ action, clientName, email, accounts }: ChooserView): string {
  const buttons = join(
    accounts.map((a) => html`<li><button type="submit" name="account" value="${a.accountId}">${a.name} <span class="role">(${a.role})</span></button></li>`),
    '\n',
  );
  return layout(
    'Choose an account',
    html`<h1>Choose an account</h1>
<p><strong>${email}</strong> is a member of several accounts. Which one should <strong>${clientName}</strong> act in?</p>
<form method="post" action="${action}">
<ul class="accounts">
${buttons}
</ul>
</form>`,
  );
}

const SCOPE_TEXT: Record<string, string> = {
  read: 'Read your projects, deployments and configuration',
  write: 'Create and change projects, deployments and configuration',
  admin: 'Administer your account: delete projects, reveal secrets, manage users and keys',
  openid: 'Know who you are: sign you in to the app with your Slipway account',
  profile: 'See your name',
  email: 'See your email address',
  offline_access: 'Stay signed in when you are not using it',
};

export interface ConsentView {
  action: string;
  denyAction: string;
  clientName: string;
  userEmail: string;
  scopes: string[];
  /** The name of the account that registered the client. */
  registeredBy: string;
  /** The client was registered by another account than the user's. */
  otherOrganization: boolean;
  /** Host (or private-use scheme) of this request's redirect URI: where the authorization goes. */
  redirectHost: string;
}

function scopeItems(scopes: string[]): Html {
  return scopes.length ? join(scopes.map((s) => html`<li><code>${s}</code> — ${SCOPE_TEXT[s] ?? s}</li>`), '\n') : html`<li>No additional permissions</li>`;
}

export function renderConsent({ action, denyAction, clientName, userEmail, scopes, registeredBy, otherOrganization, redirectHost }: ConsentView): string {
  const items = scopeItems(scopes);
  return layout(
    'Authorize access',
    html`<h1>Authorize ${clientName}</h1>
<p><strong>${clientName}</strong> asks to act for <strong>${userEmail}</strong> with these permissions:</p>
<dl class="client-facts">
<dt>Registered by</dt><dd data-fact="registered-by">${registeredBy}${otherOrganization ? html` <strong class="warning" data-fact="other-organization">registered by another organization</strong>` : ''}</dd>
<dt>Sends you back to</dt><dd data-fact="redirect-host"><code>${redirectHost}</code></dd>
</dl>
${otherOrganization ? html`<p class="warning">This app does not belong to your organization. Allow it only if you trust ${registeredBy} and expected to be sent to ${redirectHost}.</p>` : ''}
<ul class="scopes">
${items}
</ul>
<div class="actions">
  <form method="post" action="${action}"><button type="submit" name="decision" value="allow">Allow</button></form>
  <form method="post" action="${denyAction}"><button type="submit" class="secondary" name="decision" value="deny">Deny</button></form>
</div>`,
  );
}

export interface LogoutView {
  /** The provider's confirm endpoint and the one-time token its form carries. */
  action: string;
  xsrf: string;
  /** The app that asked for the sign-out (from its ID token hint or client_id), if known. */
  clientName?: string | undefined;
}

/** RP-initiated logout (OpenID Connect): the user confirms signing out of Slipway. */
export function renderLogout({ action, xsrf, clientName }: LogoutView): string {
  return layout(
    'Sign out',
    html`<h1>Sign out of Slipway?</h1>
<p>${clientName ? html`<strong>${clientName}</strong> asks to sign you out. ` : ''}Apps will have to ask you to sign in again.</p>
<form method="post" action="${action}">
  <input type="hidden" name="xsrf" value="${xsrf}">
  <div class="actions">
    <button type="submit" name="logout" value="yes">Sign out</button>
    <button type="submit" class="secondary">Stay signed in</button>
  </div>
</form>`,
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

export interface DeviceCodeView {
  /** The verification endpoint and the one-time form token oidc-provider keeps in the browser session. */
  action: string;
  xsrf: string;
  /** The code as typed, or as the device's link (`verification_uri_complete`) carried it. */
  userCode?: string | undefined;
  error?: string | undefined;
}

/** RFC 8628 §3.3: the page where a person types the code their device (the CLI) shows; field `user_code`. */
export function renderDeviceCode({ action, xsrf, userCode, error }: DeviceCodeView): string {
  const described = error ? 'user_code-hint user_code-error' : 'user_code-hint';
  return layout(
    'Connect a device',
    html`<h1>Connect a device</h1>
<p>Enter the code your device shows to sign it in to Slipway.</p>
${error ? html`<p class="error" role="alert" id="user_code-error">${error}</p>` : ''}
<form method="post" action="${action}" novalidate>
  <input type="hidden" name="xsrf" value="${xsrf}">
  <label for="user_code">Code</label>
  <input id="user_code" name="user_code" type="text" class="user-code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus value="${userCode}" aria-describedby="${described}"${error ? html` aria-invalid="true"` : ''}>
  <p class="muted" id="user_code-hint">Eight letters, as your device shows them, such as BCDF-GHJK.</p>
  <button type="submit">Continue</button>
</form>`,
  );
}

export interface DeviceConfirmView {
  action: string;
  xsrf: string;
  /** As the device shows it (`XXXX-XXXX`). */
  userCode: string;
  clientName: string;
  scopes: string[];
  /** Where the device asked from: its address and the software it named (User-Agent). */
  deviceAddress: string;
  deviceUserAgent: string | undefined;
}

/** The question before a device is signed in: which app, which permissions, which device; `Allow` or `Deny`. */
export function renderDeviceConfirm({ action, xsrf, userCode, clientName, scopes, deviceAddress, deviceUserAgent }: DeviceConfirmView): string {
  const hidden = html`<input type="hidden" name="xsrf" value="${xsrf}"><input type="hidden" name="user_code" value="${userCode}">`;
  return layout(
    'Connect a device',
    html`<h1>Sign in ${clientName}?</h1>
<p>A device asks to act for you in Slipway. Allow it only if you started this sign-in yourself and your device shows this code:</p>
<p class="user-code" data-fact="user-code"><code>${userCode}</code></p>
<dl class="client-facts">
<dt>App</dt><dd data-fact="app">${clientName}</dd>
<dt>Device address</dt><dd data-fact="device-address"><code>${deviceAddress}</code></dd>
<dt>Device software</dt><dd data-fact="device-user-agent">${deviceUserAgent || 'Not given'}</dd>
</dl>
<p>With these permissions:</p>
<ul class="scopes">
${scopeItems(scopes)}
</ul>
<div class="actions">
  <form method="post" action="${action}">${hidden}<button type="submit" name="confirm" value="yes">Allow</button></form>
  <form method="post" action="${action}">${hidden}<button type="submit" class="secondary" name="abort" value="yes">Deny</button></form>
</div>`,
  );
}
