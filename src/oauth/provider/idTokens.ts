import type Provider from 'oidc-provider';
import { currentRequest } from './currentRequest.ts';

/**
 * Every ID token names its session (`sid`), so an app can tell which sign-in a logout ends; oidc-provider
 * adds it only for clients with back-channel logout, which Slipway does not offer.
 */
export function includeSessionIds(provider: Provider): void {
  (provider.Client.prototype as unknown as { includeSid(): boolean }).includeSid = () => true;
}

/**
 * OpenID Connect Core §3.3.2.11: `at_hash` in the ID token issued beside an access token, so the app can
 * tell the two belong together. oidc-provider adds it only to ID tokens from the authorization endpoint;
 * here the access token the token endpoint has just issued (in the same request) is remembered and
 * hashed into the ID token (IdToken hashes `at_hash` itself when it is set to the token's value).
 */
export function hashAccessTokensIntoIdTokens(provider: Provider): void {
  const issued = new WeakMap<object, string>();
  const accessToken = provider.AccessToken.prototype as unknown as { save(): Promise<string>; ctx?: object };
  const save = accessToken.save;
  accessToken.save = async function saveRemembered(this: { ctx?: object }) {
    const value = await save.call(this);
    const ctx = currentRequest();
    if (ctx && typeof value === 'string') issued.set(ctx, value);
    return value;
  };
  const idToken = provider.IdToken.prototype as unknown as { issue(options?: { use?: string }): Promise<string>; set(key: string, value: unknown): void; extra: Record<string, unknown>; ctx?: object };
  const issue = idToken.issue;
  idToken.issue = async function issueWithAtHash(this: typeof idToken, options) {
    const value = this.ctx ? issued.get(this.ctx) : undefined;
    if (options?.use === 'idtoken' && value && this.extra.at_hash === undefined) this.set('at_hash', value);
    return await issue.call(this, options);
  };
}
