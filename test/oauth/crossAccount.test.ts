import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../support/api.ts';
import { makeUser } from '../support/factories.ts';
import { createProject, expectRefused, useBrowserServer } from '../support/fixtures.ts';
import { answerWebCallback, authorizeInBrowser, buildPkceRequest, discoverPublicClient } from '../support/oauthFlow.ts';
import { runCli } from '../support/cli.ts';
import type { TestServer } from '../support/server.ts';
import { Tokens, type TestUser } from '../support/tokens.ts';

const env = useBrowserServer();
let server: TestServer, browser: Browser, api: Api, tokens: Tokens;
/** Account A registers the client; a user of account B signs in through it. */
let ownerA: TestUser, adminTokenA: string;
const WEB = { base: 'https://partner.example.com', redirectUri: 'https://partner.example.com/callback' };

beforeAll(async () => {
  ({ server, browser } = env);
  api = await Api.connect(server.url);
  tokens = new Tokens(server);
  ownerA = await tokens.user('owner');
  adminTokenA = await tokens.accessToken(ownerA, 'admin');
});

/** The authorization server's pages the browser showed (login, consent), in order. */
function shownInteractionPages(page: Page): string[] {
  const shown: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url().startsWith(`${server.url}/oauth/interaction/`)) shown.push(frame.url());
  });
  return shown;
}

async function signIn(clientId: string, user: { email: string; password: string }, scope: string) {
  const config = await discoverPublicClient(server.issuer, clientId);
  const request = await buildPkceRequest(config, WEB.redirectUri, scope);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await answerWebCallback(page, WEB.redirectUri);
    const shown = shownInteractionPages(page);
    const callbackUrl = await authorizeInBrowser(page, request.url, WEB.base, user, 'Allow');
    expect(await page.locator('body').innerText()).toBe('callback received');
    await page.close();
    const issued = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: request.verifier, expectedState: request.state });
    return { shown, accessToken: issued.access_token };
  } finally {
    await context.close();
  }
}

describe('first-party clients', () => {
  it('cannot be registered through /v1: first_party true is refused, false or absent is a third-party client', async () => {
    const refused = await api.post('/v1/oauth_clients', {
      token: adminTokenA,
      body: { client_name: 'Sneaky', redirect_uris: [WEB.redirectUri], first_party: true },
    });
    expectRefused(refused, 422, 'validation_failed');
    expect(refused.body.error.details).toEqual([{ field: 'first_party', message: expect.stringContaining('operator') }]);

    const made = await api.post('/v1/oauth_clients', { token: adminTokenA, body: { client_name: 'Partner', redirect_uris: [WEB.redirectUri], first_party: false } });
    expect(made.status).toBe(201);
    expect(made.body.first_party).toBe(false);
    expect((await server.repos.oauthClients.findById(made.body.client_id))!.first_party).toBe(false);
  });

  it('can be registered by the operator with the CLI, and then skips consent', async () => {
    const result = await runCli(server.config, ['clients', 'create', '--name', 'Operator App', '--public', '--first-party', '--redirect-uri', WEB.redirectUri, '--account', ownerA.accountId, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const client = JSON.parse(result.stdout) as { client_id: string; first_party: boolean };
    expect(client.first_party).toBe(true);

    const user = await makeUser(server, { role: 'developer', account_id: ownerA.accountId });
    const { shown } = await signIn(client.client_id, user, 'read');
    expect(shown).toHaveLength(1); // the login page only
  });
});

describe('signing in users of another account (the GitHub model)', () => {
  it("shows the consent page to the other account's user, and the token acts in that user's account only", async () => {
    const made = await api.post('/v1/oauth_clients', { token: adminTokenA, body: { client_name: 'Partner App', redirect_uris: [WEB.redirectUri] } });
    expect(made.status).toBe(201);
    const projectA = await createProject(api, adminTokenA);

    const userB = await makeUser(server, { role: 'admin' });
    expect(userB.account_id).not.toBe(ownerA.accountId);
    const projectB = await createProject(api, await tokens.accessToken({ id: userB._id, email: userB.email, password: userB.password, role: 'admin', accountId: userB.account_id }, 'admin'));

    const { shown, accessToken } = await signIn(made.body.client_id, userB, 'read write');
    expect(shown).toHaveLength(2); // login, then consent
    const claims = decodeJwt(accessToken);
    expect(claims).toMatchObject({ sub: userB._id, acct: userB.account_id, client_id: made.body.client_id });

    const list = await api.get('/v1/projects?per_page=100', { token: accessToken });
    expect(list.status).toBe(200);
    const ids = list.body.data.map((p: { id: string }) => p.id);
    expect(ids).toContain(projectB.id);
    expect(ids).not.toContain(projectA.id);
    expectRefused(await api.get(`/v1/projects/${projectA.id}`, { token: accessToken }), 404, 'not_found');
  });
});
