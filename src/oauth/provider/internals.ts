import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import introspection from 'oidc-provider/lib/actions/introspection.js';
import revocation from 'oidc-provider/lib/actions/revocation.js';
import token from 'oidc-provider/lib/actions/token.js';
import userinfo from 'oidc-provider/lib/actions/userinfo.js';
import revoke from 'oidc-provider/lib/helpers/revoke.js';
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js';
import rejectStructuredTokens from 'oidc-provider/lib/shared/reject_structured_tokens.js';

/*
 * The one seam between Slipway and oidc-provider's internals: the only module of src/ that imports
 * `oidc-provider/lib/...` or replaces a method of oidc-provider's classes (ESLint refuses both
 * elsewhere). Each internal is named below with what Slipway relies on; each change to the provider is
 * one named function here, and what Slipway does instead lives in the modules beside this one that call
 * it (singleUse.ts, structuredTokens.ts, budgets.ts, idTokens.ts, clientAuth.ts, replay.ts, tokenExchange.ts).
 *
 * test/oauth/providerInternals.test.ts checks every one of them against the installed oidc-provider and
 * fails when its version is not the one below: an upgrade is reviewed here first.
 */

/** The oidc-provider version every internal below was checked against (node_modules/oidc-provider/package.json). */
export const OIDC_PROVIDER_CHECKED_VERSION = '9.13.3';

/** A step of one of oidc-provider's endpoints (Koa middleware with `ctx.oidc`; ./oidcProviderInternals.d.ts). */
export type EndpointStep = OidcProviderEndpointSteps[number];

const changed = (what: string, by: string) => new Error(`oidc-provider's ${what} changed (the seam was checked against ${OIDC_PROVIDER_CHECKED_VERSION}); review src/oauth/provider/internals.ts and ${by}`);

// --- Endpoint steps -------------------------------------------------------------------------------------
// Relied on: lib/actions/<endpoint>.js default-exports the endpoint's steps as one array, which each
// `new Provider(...)` copies when it assembles its router. So these changes are made once per process,
// before the first provider is built, and are idempotent.

/**
 * Relied on: lib/shared/reject_structured_tokens.js is the step of the introspection and revocation
 * endpoints (lib/actions/introspection.js, revocation.js) that refuses any JWT as `token` with
 * `unsupported_token_type`, after the client authenticated and before the token is looked up.
 */
export const refuseStructuredTokens: EndpointStep = rejectStructuredTokens;

/** Puts `step` where refuseStructuredTokens stands at introspection and revocation. */
export function replaceStructuredTokenRefusal(step: EndpointStep): void {
  for (const [name, action] of [
    ['introspection endpoint', introspection],
    ['revocation endpoint', revocation],
  ] as const) {
    const at = action.indexOf(rejectStructuredTokens);
    if (at !== -1) action[at] = step;
    else if (!action.includes(step)) throw changed(name, 'src/oauth/provider/structuredTokens.ts');
  }
}

/**
 * Relied on: lib/actions/userinfo.js holds a step named `validateAudience`, after the access token is
 * found (`ctx.oidc.entities.AccessToken`), that refuses every token with an audience.
 */
export function replaceUserinfoAudienceCheck(step: EndpointStep): void {
  if (userinfo.includes(step)) return;
  const at = userinfo.findIndex((s) => s.name === 'validateAudience');
  if (at === -1) throw changed('userinfo endpoint', 'src/oauth/provider/structuredTokens.ts');
  userinfo[at] = step;
}

/**
 * Relied on: lib/actions/token.js ends with a step named `callTokenHandler`, which runs the grant type's
 * handler (the only step that issues anything) and emits `grant.success`; every step before it parsed
 * the body, authenticated the client (`ctx.oidc.client`) and checked the grant type.
 */
export function insertBeforeTokenHandler(step: EndpointStep): void {
  if (token.includes(step)) return;
  const at = token.findIndex((s) => s.name === 'callTokenHandler');
  if (at === -1) throw changed('token endpoint', 'src/oauth/provider/budgets.ts');
  token.splice(at, 0, step);
}

/**
 * Relied on: lib/actions/token.js holds a step named `assembleTokenParams` (the body read into
 * `ctx.oidc.params`, a mutable object of the allowed parameters: every registered grant's and client
 * authentication's) directly followed by the client authentication steps (lib/shared/client_auth.js),
 * which read `client_id` from those params.
 */
export function insertBeforeTokenClientAuth(step: EndpointStep): void {
  if (token.includes(step)) return;
  const at = token.findIndex((s) => s.name === 'assembleTokenParams');
  if (at === -1) throw changed('token endpoint', 'src/oauth/provider/tokenExchange.ts');
  token.splice(at + 1, 0, step);
}

// --- Helpers --------------------------------------------------------------------------------------------

/**
 * Relied on: lib/helpers/revoke.js's default export `revoke(ctx, grantId)`, what oidc-provider itself
 * does on a sequential second use of a code or refresh token: every token of the grant is revoked through
 * the adapter, the grant too (revokeGrantPolicy), and `grant.revoked` is emitted. It needs the
 * provider's request (`ctx.oidc`).
 */
export async function revokeGrant(ctx: KoaContextWithOIDC, grantId: string): Promise<void> {
  await revoke(ctx, grantId);
}

/** A DPoP proof oidc-provider verified for this request (opaque to Slipway). */
export type VerifiedDpopProof = { thumbprint: string } & Record<string, unknown>;

/**
 * Relied on: lib/helpers/validate_dpop.js's default export `validateDpop(provider, ctx)` verifies the
 * request's DPoP proof the way every grant does (algorithms, `htm`/`htu`, `iat` or nonce; answers
 * `use_dpop_nonce` when a nonce is required) and resolves to it, or undefined without one; its
 * `checkDpopReplay(provider, ctx, proof, clientId)` claims the proof once (ReplayDetection, ./replay.ts).
 * A grant then binds the token with `setThumbprint('jkt', proof.thumbprint)` (lib/helpers/grant_common.js
 * `applyDpopBinding`, what client_credentials does).
 */
export async function readDpopProof(provider: Provider, ctx: KoaContextWithOIDC): Promise<VerifiedDpopProof | undefined> {
  return (await validateDpop(provider, ctx)) as VerifiedDpopProof | undefined;
}

/** Binds `token` to a proof read by readDpopProof, after claiming the proof once, as oidc-provider's own grants do. */
export async function bindToDpopProof(provider: Provider, ctx: KoaContextWithOIDC, proof: VerifiedDpopProof, token: { setThumbprint(prop: string, input: string): void }): Promise<void> {
  await checkDpopReplay(provider, ctx, proof, ctx.oidc.client!.clientId);
  token.setThumbprint('jkt', proof.thumbprint);
}

// --- The models -----------------------------------------------------------------------------------------
// Relied on: oidc-provider builds its model classes per Provider instance (provider.Client,
// provider.AccessToken, ... are that provider's own, lib/models/*.js), so each change below touches the
// one provider it is given; several providers in one process (tests start two) do not share them.

/** Relied on: `Client.prototype.includeSid()` decides whether an ID token carries `sid` (oidc-provider: back-channel logout clients only). */
export function replaceIncludeSid(provider: Provider, includeSid: () => boolean): void {
  (provider.Client.prototype as unknown as { includeSid(): boolean }).includeSid = includeSid;
}

/**
 * Relied on: `Client.prototype.compareClientSecret(presented)` is the one comparison of a presented
 * client secret (client_secret_basic and _post) with the client's `clientSecret` metadata, as stored.
 */
export function replaceClientSecretComparison(provider: Provider, compare: (stored: string | undefined, presented: unknown) => boolean): void {
  const proto = provider.Client.prototype as unknown as { compareClientSecret(presented: unknown): boolean };
  proto.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, presented: unknown) {
    return compare(this.clientSecret, presented);
  };
}

/**
 * Relied on: `AccessToken.prototype.save()` (lib/models/base_token.js) stores an access token, or signs it
 * when it is a JWT, and resolves to the value the client receives. `saved` sees that value.
 */
export function afterAccessTokenSaved(provider: Provider, saved: (value: string) => void): void {
  const proto = provider.AccessToken.prototype as unknown as { save(): Promise<unknown> };
  const save = proto.save;
  proto.save = async function saveThenTell(this: object) {
    const value = await save.call(this);
    if (typeof value === 'string') saved(value);
    return value;
  };
}

/** An ID token about to be signed: its request, the claims added to it, and how to add one. */
export interface IdTokenDraft {
  ctx?: object;
  extra: Record<string, unknown>;
  set(claim: string, value: unknown): void;
}

/**
 * Relied on: `IdToken.prototype.issue({ use })` (lib/models/id_token.js) signs the token, merging the
 * claims of `extra` (added with `set`; `at_hash` set to an access token's value is hashed by it); `use` is
 * `'idtoken'` for an ID token proper (other uses sign introspection or userinfo JWTs). `this.ctx` is the request.
 */
export function beforeIdTokenIssued(provider: Provider, before: (draft: IdTokenDraft, use: string | undefined) => void): void {
  const proto = provider.IdToken.prototype as unknown as { issue(options?: { use?: string }): Promise<string> };
  const issue = proto.issue;
  proto.issue = async function issueAfter(this: IdTokenDraft, options?: { use?: string }) {
    before(this, options?.use);
    return await issue.call(this, options);
  };
}

/** What a single-use claim is made on: the models whose second use must be refused. */
export type SingleUseArtifact = 'AuthorizationCode' | 'RefreshToken' | 'DeviceCode' | 'PushedAuthorizationRequest' | 'Interaction';

/**
 * Relied on: `consume()` of AuthorizationCode, RefreshToken, DeviceCode and PushedAuthorizationRequest
 * (lib/models/*.js) calls the adapter's `consume(jti)` before anything is issued from them, and an
 * interaction is ended once, by `Interaction.prototype.destroy()` (lib/models/base_model.js), which calls
 * the adapter's `destroy(uid)` when the authorization resumes (lib/actions/authorization/resume.js). Codes and refresh tokens carry `grantId`
 * (a device code once it was approved: lib/actions/grants/device_code.js consumes it only then).
 * `failed` is given what the claim threw and the artifact; it must throw.
 */
export function onSingleUseClaimFailed(provider: Provider, artifact: SingleUseArtifact, failed: (err: unknown, claimed: { grantId?: string }) => Promise<never>): void {
  const method = artifact === 'Interaction' ? 'destroy' : 'consume';
  wrapClaim(provider, artifact, method, failed);
  // A rotated refresh token is claimed by the insert of its successor (src/repositories/oidc/adapter.ts,
  // rotate()): relied on, lib/actions/grants/refresh_token.js calls `consume()` of the used token, then
  // builds its successor (same `grantId`) and calls its `save()` before it issues anything.
  if (artifact === 'RefreshToken') wrapClaim(provider, artifact, 'save', failed);
}

function wrapClaim(provider: Provider, artifact: SingleUseArtifact, method: 'destroy' | 'consume' | 'save', failed: (err: unknown, claimed: { grantId?: string }) => Promise<never>): void {
  const proto = provider[artifact].prototype as unknown as Record<typeof method, (this: { grantId?: string }, ...args: unknown[]) => Promise<unknown>>;
  if (typeof proto[method] !== 'function') throw changed(`${artifact}.${method}`, 'src/oauth/provider/singleUse.ts');
  const claim = proto[method];
  proto[method] = async function claimOnce(this: { grantId?: string }, ...args: unknown[]): Promise<unknown> {
    try {
      return await claim.apply(this, args);
    } catch (err) {
      return await failed(err, this);
    }
  };
}

/** oidc-provider's own lookup of a token by value, and how it builds a token from its payload. */
export interface TokenModel {
  find(value: unknown, options?: unknown): Promise<unknown>;
  instantiate(payload: Record<string, unknown>): unknown;
}

/**
 * Relied on: the static `AccessToken.find(value)` and `ClientCredentials.find(value)`
 * (lib/models/base_model.js) are how introspection, revocation and userinfo find a token by value
 * (lib/helpers/token_find.js, lib/shared/access_token.js); the static `instantiate(payload)` builds
 * a token from a payload without storage. `find` is given oidc-provider's own model (its `find` reads storage).
 */
export function replaceTokenFind(provider: Provider, model: 'AccessToken' | 'ClientCredentials', find: (value: unknown, options: unknown, own: TokenModel) => Promise<unknown>): void {
  const tokens = provider[model] as unknown as TokenModel;
  const own: TokenModel = { find: tokens.find.bind(tokens), instantiate: tokens.instantiate.bind(tokens) };
  tokens.find = async (value, options) => await find(value, options, own);
}

/**
 * Relied on: the static `Client.find(id)` (lib/models/client.js) is every lookup of a client by id (at the
 * token endpoint: client authentication, before anything else reads the client). `before` runs first
 * and may throw.
 */
export function beforeClientFind(provider: Provider, before: (id: string) => void): void {
  const find = provider.Client.find.bind(provider.Client);
  provider.Client.find = async (id: string) => {
    before(id);
    return await find(id);
  };
}

/**
 * Relied on: the static `ReplayDetection.unique(iss, jti, exp)` (lib/models/replay_detection.js) is the
 * DPoP proof replay check (a find, then a save): true the first time a proof is seen, to be remembered
 * until `exp` (seconds).
 */
export function replaceReplayCheck(provider: Provider, unique: (iss: string, jti: string, exp: number) => Promise<boolean>): void {
  (provider.ReplayDetection as unknown as { unique: typeof unique }).unique = unique;
}

/**
 * Relied on: a device code (lib/models/device_code.js) gets its `exp` when it is first saved
 * (lib/models/formats/opaque.js `getValueAndPayload`: `token.exp || now + token.expiration`, now from
 * the system clock), and every step that reads one finds it with `ignoreExpiration` and then asks its
 * `isExpired` (lib/models/base_model.js): the verification page and its confirmation
 * (lib/actions/code_verification.js), the resumed sign-in (lib/actions/authorization/device.js) and the
 * token endpoint's `expired_token` (lib/actions/grants/device_code.js). Both are read from `nowSeconds` instead.
 */
export function deviceCodeExpiryOn(provider: Provider, nowSeconds: () => number): void {
  type Expiring = { exp?: number; iat?: number; expiration: number };
  const proto = provider.DeviceCode.prototype as unknown as { getValueAndPayload(): Promise<unknown> };
  if (typeof proto.getValueAndPayload !== 'function' || !('isExpired' in provider.DeviceCode.prototype))
    throw changed('DeviceCode expiry', 'src/oauth/provider/deviceFlow.ts');
  const getValueAndPayload = proto.getValueAndPayload;
  proto.getValueAndPayload = async function stampOnClock(this: Expiring) {
    if (!this.exp) {
      const now = nowSeconds();
      this.iat ??= now;
      this.exp = now + this.expiration;
    }
    return await getValueAndPayload.call(this);
  };
  Object.defineProperty(provider.DeviceCode.prototype, 'isExpired', {
    configurable: true,
    get(this: Expiring) {
      return (this.exp ?? 0) <= nowSeconds();
    },
  });
}

/** A device code as saved: its id, and the answer it carries. */
export interface DeviceCodeDraft {
  jti: string;
  inFlight?: boolean;
  error?: string;
}

/**
 * Relied on: `DeviceCode.prototype.save()` stores a device code. On a POST of the verification page
 * (lib/actions/code_verification.js, route `code_verification`) oidc-provider finds the code by its user
 * code, refuses it when it was answered before (`inFlight`, `error` or `accountId` set: a read), and
 * saves it with the answer, `error: 'access_denied'` (Deny) or `inFlight: true` (Allow, before the
 * sign-in): the first save of that request. `before` runs before every save and may throw to refuse it.
 */
export function beforeDeviceCodeSaved(provider: Provider, before: (code: DeviceCodeDraft) => Promise<void>): void {
  const proto = provider.DeviceCode.prototype as unknown as { save(): Promise<unknown> };
  if (typeof proto.save !== 'function') throw changed('DeviceCode.save', 'src/oauth/provider/deviceFlow.ts');
  const save = proto.save;
  proto.save = async function saveAfter(this: DeviceCodeDraft) {
    await before(this);
    return await save.call(this);
  };
}
