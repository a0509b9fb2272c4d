/* global document, sessionStorage, crypto, history, location, btoa, URLSearchParams */
// A browser app on its own origin that signs in to Slipway with Authorization Code + PKCE (S256) and
// lists the user's projects through /v1. No framework and no build step: everything below is the
// platform (fetch, Web Crypto, sessionStorage). The access token lives only in this page's memory; the
// PKCE verifier and state live in sessionStorage for the round trip to the login page only.

const statusLine = document.getElementById('status');
const signInButton = document.getElementById('sign-in');
const signOutButton = document.getElementById('sign-out');
const list = document.getElementById('projects');
const details = document.getElementById('details');

const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));
const s256 = async (text) => base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));

function show(text) {
  statusLine.textContent = text;
}

/** config.json: { issuer, api, client_id, scope } (served next to this page). */
async function loadConfig() {
  const response = await fetch('/config.json');
  if (!response.ok) throw new Error('config.json is missing');
  return await response.json();
}

/** The authorization server's metadata (RFC 8414 / OpenID discovery); a public document. */
async function discover(issuer) {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`discovery failed: ${response.status}`);
  return await response.json();
}

const redirectUri = () => `${location.origin}/callback`;

async function signIn(config, metadata) {
  const verifier = randomString();
  const state = randomString();
  sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));
  const url = new URL(metadata.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.client_id,
    redirect_uri: redirectUri(),
    scope: config.scope,
    state,
    code_challenge: await s256(verifier),
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
}

/** Back from the login page: check state and issuer (RFC 9207), exchange the code for tokens. */
async function finishSignIn(config, metadata, params) {
  const saved = JSON.parse(sessionStorage.getItem('pkce') ?? 'null');
  sessionStorage.removeItem('pkce');
  history.replaceState(null, '', '/');
  if (params.get('error')) throw new Error(`sign-in refused: ${params.get('error_description') ?? params.get('error')}`);
  if (!saved || params.get('state') !== saved.state) throw new Error('sign-in failed: the state does not match');
  if (params.get('iss') && params.get('iss') !== metadata.issuer) throw new Error('sign-in failed: unexpected issuer');
  const response = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') ?? '',
      redirect_uri: redirectUri(),
      code_verifier: saved.verifier,
      client_id: config.client_id,
    }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`token exchange failed: ${body.error_description ?? body.error}`);
  return body;
}

async function listProjects(config, accessToken) {
  const response = await fetch(`${config.api}/v1/projects?per_page=100`, { headers: { Authorization: `Bearer ${accessToken}` } });
  const body = await response.json();
  if (!response.ok) throw new Error(`listing projects failed: ${body.error?.message ?? response.status}`);
  list.replaceChildren(
    ...body.data.map((project) => {
      const item = document.createElement('li');
      item.textContent = `${project.name} (${project.status})`;
      return item;
    }),
  );
  // Exposed to this origin by the API's CORS headers.
  details.textContent = `request ${response.headers.get('X-Request-Id')}, ${response.headers.get('RateLimit-Remaining')} requests left this hour`;
  show(body.data.length ? `${body.pagination.total} project(s)` : 'No projects yet.');
}

async function main() {
  const config = await loadConfig();
  const metadata = await discover(config.issuer);
  let tokens;
  signInButton.addEventListener('click', () => void signIn(config, metadata).catch((err) => show(err.message)));
  signOutButton.addEventListener('click', async () => {
    // Revoke the refresh token (the access token expires on its own), then forget both.
    if (tokens?.refresh_token && metadata.revocation_endpoint) {
      await fetch(metadata.revocation_endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: config.client_id }),
      }).catch(() => undefined);
    }
    tokens = undefined;
    list.replaceChildren();
    details.textContent = '';
    signOutButton.hidden = true;
    signInButton.hidden = false;
    show('Signed out.');
  });

  const params = new URLSearchParams(location.search);
  if (location.pathname === '/callback' && (params.has('code') || params.has('error'))) {
    show('Signing in…');
    tokens = await finishSignIn(config, metadata, params);
  }
  if (!tokens) {
    signInButton.hidden = false;
    show('Not signed in.');
    return;
  }
  signOutButton.hidden = false;
  show('Loading projects…');
  await listProjects(config, tokens.access_token);
}

main().catch((err) => {
  show(err.message);
  signInButton.hidden = false;
});
