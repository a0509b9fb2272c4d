import { beforeAll, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/domain/principal.ts';
import { OperatorClientInput } from '../../src/schemas/oauthClients.ts';
import { parseInput } from '../../src/schemas/parse.ts';
import { makeClient, makeUser } from '../support/factories.ts';
import { expectRefused, useApiServer } from '../support/fixtures.ts';
import { authorizeOverHttp, CookieJar } from '../support/oauthDriver.ts';

/*
 * The consent page says who registered the client and where the answer goes, and marks a client of
 * another organization; registered clients cannot take the product's name or a first-party app's.
 */
const env = useApiServer();
const REDIRECT = 'https://release.example.com/oauth/callback';
let acmeToken: string;
let acmeAccount: string;

beforeAll(async () => {
  const acme = await makeUser(env.server, { role: 'owner', name: 'Acme Ops' });
  acmeAccount = acme.account_id;
  acmeToken = await env.tokens.accessToken({ id: acme._id, email: acme.email, password: acme.password, role: 'owner', accountId: acme.account_id }, 'admin');
});

async function consentPageFor(user: { email: string; password: string }, clientId: string): Promise<string> {
  let consent = '';
  await authorizeOverHttp(
    {
      issuer: env.server.issuer,
      clientId,
      redirectUri: REDIRECT,
      scope: 'read',
      email: user.email,
      password: user.password,
      onPage: (html) => {
        if (/>\s*Allow\s*</.test(html)) consent = html;
      },
    },
    new CookieJar(),
  );
  return consent;
}

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#39;|&#x27;/g, "'").replace(/\s+/g, ' ');

describe('the consent page', () => {
  it('names the registering account and the redirect host, and marks a client of another organization', async () => {
    const registered = await env.api.post('/v1/oauth_clients', { token: acmeToken, body: { client_name: 'Release Radar', redirect_uris: [REDIRECT] } });
    expect(registered.status).toBe(201);
    const clientId = registered.body.client_id;

    const outsider = await makeUser(env.server, { role: 'developer', name: 'Other Org Dev' });
    const page = text(await consentPageFor(outsider, clientId));
    expect(page).toContain('Authorize Release Radar');
    expect(page).toContain("Registered by Acme Ops's account");
    expect(page).toContain('registered by another organization');
    expect(page).toContain('Sends you back to release.example.com');

    const colleague = await makeUser(env.server, { role: 'developer', account_id: acmeAccount });
    const own = text(await consentPageFor(colleague, clientId));
    expect(own).toContain("Registered by Acme Ops's account");
    expect(own).toContain('Sends you back to release.example.com');
    expect(own).not.toContain('another organization');
  });
});

describe('client names', () => {
  it('refuses the product’s name and look-alikes of it at registration (422 validation_failed on client_name)', async () => {
    for (const client_name of ['Slipway Dashboard', 'slipway', 'SLIPWAY', 'S l i p w a y', 'Slip-way.', '$1ipway CLI', 'Ｓｌｉｐｗａｙ', 'My SIipway helper', 'Slipvvay']) {
      const res = await env.api.post('/v1/oauth_clients', { token: acmeToken, body: { client_name, redirect_uris: [REDIRECT] } });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field), client_name).toEqual(['client_name']);
    }
    expect((await env.api.post('/v1/oauth_clients', { token: acmeToken, body: { client_name: 'Shipway Tracker', redirect_uris: [REDIRECT] } })).status).toBe(201);
  });

  it('refuses look-alikes from other scripts and small capitals (Unicode confusable skeletons), and bidirectional controls', async () => {
    // Dotless i, small capitals, Lisu, Cherokee, Armenian, Cyrillic і: each reads as "Slipway".
    for (const client_name of ['Slıpway', 'ꜱʟɪᴘᴡᴀʏ', 'ꓢꓡꓲꓑꓪꓮꓬ', 'ᏚᏞᎥᏢᎳᎪᎽ', 'Sլipway', 'Slіpway Deploy']) {
      const res = await env.api.post('/v1/oauth_clients', { token: acmeToken, body: { client_name, redirect_uris: [REDIRECT] } });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details.map((d: { field: string }) => d.field), client_name).toEqual(['client_name']);
    }
    // A right-to-left override shows "yawpilS" as "Slipway"; an isolate could reorder any name.
    for (const client_name of ['\u202EyawpilS', 'Release \u2067board\u2069 app', '\u202Aplain']) {
      const res = await env.api.post('/v1/oauth_clients', { token: acmeToken, body: { client_name, redirect_uris: [REDIRECT] } });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details[0].message).toContain('bidirectional control');
    }
    // Other scripts as such are welcome; right-to-left marks too.
    for (const client_name of ['Тестовый клиент', 'ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ', 'לקוח\u200F שחרור', '東京デプロイ']) {
      const res = await env.api.post('/v1/oauth_clients', { token: acmeToken, body: { client_name, redirect_uris: [REDIRECT] } });
      expect(res.status, `${client_name}: ${JSON.stringify(res.body)}`).toBe(201);
    }
  });

  it('refuses the name of a first-party app (in any spacing or case); the operator may still use both', async () => {
    await makeClient(env.server, { account_id: acmeAccount, client_name: 'Deploy Console', first_party: true });
    for (const client_name of ['Deploy Console', 'deploy  console', 'DEPLOY-CONSOLE', 'Ꭰeploy Ꮯonsole', 'ꓓeploy ꓚonsole', 'ᴅᴇᴘʟᴏʏ ᴄᴏɴꜱᴏʟᴇ']) {
      const res = await env.api.post('/v1/oauth_clients', { token: acmeToken, body: { client_name, redirect_uris: [REDIRECT] } });
      expectRefused(res, 422, 'validation_failed');
      expect(res.body.error.details[0].field).toBe('client_name');
    }
    const operator = await env.server.services.oauthClients.registerAsOperator(
      systemPrincipal(acmeAccount),
      parseInput(OperatorClientInput, { client_name: 'Slipway CLI', redirect_uris: [REDIRECT], first_party: true }),
    );
    expect(operator.client.client_name).toBe('Slipway CLI');
  });
});
