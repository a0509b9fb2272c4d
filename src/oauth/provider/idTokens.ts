import type Provider from 'oidc-provider';
import { currentRequest } from './currentRequest.ts';
import { afterAccessTokenSaved, beforeIdTokenIssued, replaceIncludeSid } from './internals.ts';

/**
 * Every ID token names its session (`sid`), so an app can tell which sign-in a logout ends; oidc-provider
 * adds it only for clients with back-channel logout, which Slipway does not offer.
 */
export function includeSessionIds(provider: Provider): void {
  replaceIncludeSid(provider, () => true);
}

/**
 * OpenID Connect Core §3.3.2.11: `at_hash` in the ID token issued beside an access token, so the app can
 * tell the two belong together. oidc-provider adds it only to ID tokens from the authorization endpoint;
 * here the access token the token endpoint has just issued (in the same request) is remembered and
 * hashed into the ID token (IdToken hashes `at_hash` itself when it is set to the token's value).
 */
export function hashAccessTokensIntoIdTokens(provider: Provider): void {
  const issued = new WeakMap<object, string>();
  afterAccessTokenSaved(provider, (value) => {
    const ctx = currentRequest();
    if (ctx) issued.set(ctx, value);
  });
  beforeIdTokenIssued(provider, (idToken, use) => {
    const value = idToken.ctx ? issued.get(idToken.ctx) : undefined;
    if (use === 'idtoken' && value && idToken.extra.at_hash === undefined) idToken.set('at_hash', value);
  });
}
