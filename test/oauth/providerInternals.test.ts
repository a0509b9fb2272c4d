import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import introspection from 'oidc-provider/lib/actions/introspection.js';
import revocation from 'oidc-provider/lib/actions/revocation.js';
import token from 'oidc-provider/lib/actions/token.js';
import userinfo from 'oidc-provider/lib/actions/userinfo.js';
import revoke from 'oidc-provider/lib/helpers/revoke.js';
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js';
import rejectStructuredTokens from 'oidc-provider/lib/shared/reject_structured_tokens.js';
import { OIDC_PROVIDER_CHECKED_VERSION } from '../../src/oauth/provider/internals.ts';
import { makeClient } from '../support/factories.ts';
import { race } from '../support/concurrency.ts';
import { basicAuth, tokenRequest } from '../support/oauthDriver.ts';
import { startAnotherInstance, startTestServer, type TestServer } from '../support/server.ts';
import { Tokens } from '../support/tokens.ts';

/*
 * What src/oauth/provider/internals.ts relies on in oidc-provider, checked against the installed one: an
 * upgrade that moves or changes any of it fails here, and so does any upgrade at all until the seam's
 * checked version is moved (after reading what changed). Then the seam, applied by two running
 * instances in one process, over HTTP.
 */

const ROOT = new URL('../../', import.meta.url);
const SEAM = new URL('src/oauth/provider/internals.ts', ROOT);
const PACKAGE = new URL('node_modules/oidc-provider/', ROOT);

type Step = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void;

// The endpoints' steps as oidc-provider ships them: read when this file loads, before any provider of
// ours is built (each test file runs in a process of its own).
const pristine = { introspection: [...introspection], revocation: [...revocation], userinfo: [...userinfo], token: [...token] };

/** The private modules the seam may import, each checked below. */
const CHECKED_MODULES = [
  'oidc-provider/lib/actions/introspection.js',
  'oidc-provider/lib/actions/revocation.js',
  'oidc-provider/lib/actions/token.js',
  'oidc-provider/lib/actions/userinfo.js',
  'oidc-provider/lib/helpers/revoke.js',
  'oidc-provider/lib/helpers/validate_dpop.js',
  'oidc-provider/lib/shared/reject_structured_tokens.js',
];

const names = (steps: Step[]) => steps.map((step) => step.name);
const step = (steps: Step[], name: string) => steps.filter((s) => s.name === name);

/** Runs one endpoint step with the parts of a request it reads; says whether it passed on. */
async function run(s: Step, oidc: Record<string, unknown>): Promise<boolean> {
  let passed = false;
  await s({ oidc } as unknown as KoaContextWithOIDC, async () => {
    passed = true;
  });
  return passed;
}

const JWT = 'eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJ4In0.c2ln';

describe('oidc-provider as the seam was checked against', () => {
  it('the installed version is the one the seam names', () => {
    const installed = (JSON.parse(readFileSync(new URL('package.json', PACKAGE), 'utf8')) as { version: string }).version;
    expect(installed, `oidc-provider ${installed} is installed; review src/oauth/provider/internals.ts against it, then move OIDC_PROVIDER_CHECKED_VERSION`).toBe(OIDC_PROVIDER_CHECKED_VERSION);
  });

  it('every private module the seam imports is one this file checks, and is where the seam expects it', () => {
    const imported = [...readFileSync(SEAM, 'utf8').matchAll(/from '(oidc-provider\/lib\/[^']+)'/g)].map((m) => m[1]);
    expect(imported.sort()).toEqual([...CHECKED_MODULES].sort());
    for (const module of CHECKED_MODULES) expect(existsSync(new URL(module.replace('oidc-provider/', ''), PACKAGE)), module).toBe(true);
  });

  it('introspection and revocation: an array of steps, refusing JWTs with reject_structured_tokens after client authentication', async () => {
    for (const steps of [pristine.introspection, pristine.revocation]) {
      expect(steps.every((s) => typeof s === 'function')).toBe(true);
      expect(steps.filter((s) => s === rejectStructuredTokens)).toHaveLength(1);
      // After the token is known to be present (client authentication comes before that).
      expect(steps.indexOf(rejectStructuredTokens)).toBe(names(steps).indexOf('validateTokenPresence') + 1);
    }
    await expect(run(rejectStructuredTokens, { params: { token: JWT }, route: 'introspection' })).rejects.toBeInstanceOf(errors.UnsupportedTokenType);
    expect(await run(rejectStructuredTokens, { params: { token: 'opaque-value' }, route: 'introspection' })).toBe(true);
  });

  it("userinfo: one step named validateAudience, after the token is found, refusing any token with an audience", async () => {
    expect(step(pristine.userinfo, 'validateAudience')).toHaveLength(1);
    expect(names(pristine.userinfo).indexOf('validateAudience')).toBeGreaterThan(0);
    const [validateAudience] = step(pristine.userinfo, 'validateAudience');
    await expect(run(validateAudience!, { entities: { AccessToken: { aud: 'https://api.example' } } })).rejects.toBeInstanceOf(errors.InvalidToken);
    expect(await run(validateAudience!, { entities: { AccessToken: {} } })).toBe(true);
  });

  it('token: callTokenHandler is the last step, after the client and its grant type were checked', () => {
    const list = names(pristine.token);
    expect(list.at(-1)).toBe('callTokenHandler');
    expect(list.filter((n) => n === 'callTokenHandler')).toHaveLength(1);
    expect(list.indexOf('allowedGrantTypeCheck')).toBeGreaterThan(-1);
    expect(list.indexOf('allowedGrantTypeCheck')).toBeLessThan(list.indexOf('callTokenHandler'));
  });

  it('token: assembleTokenParams is followed by client authentication, which reads client_id from the params', () => {
    const list = names(pristine.token);
    const at = list.indexOf('assembleTokenParams');
    expect(at).toBeGreaterThan(-1);
    expect(list.filter((n) => n === 'assembleTokenParams')).toHaveLength(1);
    expect(list.slice(at + 1)).toContain('authenticateClient');
    expect(list.indexOf('authenticateClient')).toBeLessThan(list.indexOf('supportedGrantTypeCheck'));
  });

  it('validateDpop(provider, ctx) and checkDpopReplay(provider, ctx, proof, clientId): what every grant binds a token with', () => {
    expect(typeof validateDpop).toBe('function');
    expect(validateDpop.length).toBe(3);
    expect(typeof checkDpopReplay).toBe('function');
    expect(checkDpopReplay.length).toBe(4);
  });

  it('revoke(ctx, grantId): a function of the request and the grant', () => {
    expect(typeof revoke).toBe('function');
    expect(revoke.length).toBe(2);
  });

  it("each provider's models are its own, with the methods the seam replaces or wraps", () => {
    const one = new Provider('http://127.0.0.1:1', {});
    const two = new Provider('http://127.0.0.1:2', {});
    // Per provider: a change to one provider's models leaves another's alone.
    expect(one.Client).not.toBe(two.Client);
    expect(one.AccessToken).not.toBe(two.AccessToken);
    expect(one.ReplayDetection).not.toBe(two.ReplayDetection);

    const proto = (model: { prototype: unknown }) => model.prototype as Record<string, unknown>;
    const fn = (value: unknown) => (typeof value === 'function' ? (value as (...args: unknown[]) => unknown) : undefined);
    const includeSid = fn(proto(one.Client).includeSid);
    expect(includeSid?.length).toBe(0);
    // What the seam changes: without back-channel logout, oidc-provider adds no `sid`.
    expect(includeSid?.call({})).toBeFalsy();
    expect(fn(proto(one.Client).compareClientSecret)?.length).toBe(1);
    expect(fn(proto(one.AccessToken).save)).toBeDefined();
    expect(fn(proto(one.IdToken).issue)).toBeDefined();
    expect(fn(proto(one.IdToken).set)?.length).toBe(2);
    for (const model of [one.AuthorizationCode, one.RefreshToken, one.DeviceCode, one.PushedAuthorizationRequest]) expect(fn(proto(model).consume), model.name).toBeDefined();
    // deviceCodeExpiryOn: a device code's payload is made by getValueAndPayload, and isExpired is a getter of `exp`.
    expect(fn(proto(one.DeviceCode).getValueAndPayload)).toBeDefined();
    // beforeDeviceCodeSaved: the verification page answers a code by saving it.
    expect(fn(proto(one.DeviceCode).save)).toBeDefined();
    expect(readFileSync(new URL('lib/actions/code_verification.js', PACKAGE), 'utf8')).toMatch(/code\.inFlight = true;\s*await code\.save\(\);/);
    let holder: object | null = one.DeviceCode.prototype as object;
    let isExpired: PropertyDescriptor | undefined;
    while (holder && !isExpired) [isExpired, holder] = [Object.getOwnPropertyDescriptor(holder, 'isExpired'), Object.getPrototypeOf(holder) as object | null];
    const now = Math.floor(Date.now() / 1000);
    expect(isExpired?.get?.call({ exp: now - 1 })).toBe(true);
    expect(isExpired?.get?.call({ exp: now + 60 })).toBe(false);
    expect(fn(proto(one.Interaction).destroy)).toBeDefined();
    // A rotated refresh token is claimed by its successor's save(): the refresh grant consumes the used
    // token, then saves the one that replaces it, before it issues anything (the access token is saved after).
    expect(fn(proto(one.RefreshToken).save)).toBeDefined();
    const refreshGrant = readFileSync(new URL('../../node_modules/oidc-provider/lib/actions/grants/refresh_token.js', import.meta.url), 'utf8');
    const [consumed, saved, issued] = ['await refreshToken.consume();', 'refreshTokenValue = await refreshToken.save();', 'await at.save();'].map((step) => refreshGrant.indexOf(step));
    expect(consumed).toBeGreaterThan(-1);
    expect(saved).toBeGreaterThan(consumed);
    expect(issued).toBeGreaterThan(saved);

    const statics = (model: unknown) => model as Record<string, unknown>;
    for (const model of [one.AccessToken, one.ClientCredentials]) {
      expect(fn(statics(model).find), model.name).toBeDefined();
      expect(fn(statics(model).instantiate)?.length, model.name).toBe(1);
    }
    expect(fn(statics(one.Client).find)?.length).toBe(1);
    expect(fn(statics(one.ReplayDetection).unique)?.length).toBe(3);
  });
});

describe('the seam, applied by two instances in one process', () => {
  let a: TestServer, b: TestServer;
  beforeAll(async () => {
    a = await startTestServer();
    b = await startAnotherInstance(a);
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it("changes each endpoint's steps once, however many providers were built", () => {
    for (const [steps, before] of [
      [introspection, pristine.introspection],
      [revocation, pristine.revocation],
    ] as const) {
      expect(steps).not.toContain(rejectStructuredTokens);
      expect(steps).toHaveLength(before.length);
      expect(steps.filter((s, i) => s !== before[i])).toHaveLength(1);
    }
    expect(names(userinfo)).not.toContain('validateAudience');
    expect(userinfo).toHaveLength(pristine.userinfo.length);
    // Two steps added: the token budgets' before the grant handler, the token exchange's before client authentication.
    expect(token).toHaveLength(pristine.token.length + 2);
    expect(names(token).at(-1)).toBe('callTokenHandler');
    const exchangeStep = names(pristine.token).indexOf('assembleTokenParams') + 1;
    expect(names(token)[exchangeStep]).toBe('exchangeWithoutClient');
    expect(token.filter((s) => !pristine.token.includes(s)).map((s) => s.name)).toEqual(['exchangeWithoutClient', 'reserveIssuedToken']);
    expect(token.filter((s) => pristine.token.includes(s))).toEqual(pristine.token);
  });

  it("changes each running provider's models: every ID token names its session", () => {
    for (const server of [a, b]) {
      const includeSid = (server.running.provider.Client.prototype as unknown as { includeSid(): boolean }).includeSid;
      expect(includeSid.call({})).toBe(true);
    }
  });

  it('client_credentials at either instance, the JWT introspected at the other: hashed secrets, budgets, JWT lookup', async () => {
    const tokens = new Tokens(a);
    const owner = await tokens.user('owner');
    const { client, clientSecret } = await makeClient(a, { account_id: owner.accountId, redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic', grant_types: ['client_credentials'] });
    const auth = { clientId: client._id, clientSecret: clientSecret! };
    const PARALLEL = 8;
    const issued = await race(PARALLEL, (i) => tokenRequest(`${[a, b][i % 2]!.url}/oauth`, auth, { grant_type: 'client_credentials', scope: 'read' }));
    const answers = await Promise.all(
      issued.map(async ({ access_token }, i) => {
        const res = await fetch(`${[b, a][i % 2]!.url}/oauth/token/introspection`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(auth.clientId, auth.clientSecret) },
          body: new URLSearchParams({ token: access_token }),
        });
        return (await res.json()) as { active?: boolean; client_id?: string; scope?: string };
      }),
    );
    expect(answers).toEqual(Array(PARALLEL).fill(expect.objectContaining({ active: true, client_id: client._id, scope: 'read' })));
  });
});
