import { inject } from 'vitest';
import { SlipwayOAuth, type TokenSet } from '../../src/index.ts';
import type { HarnessInfo } from './harness.ts';
import { CookieJar, loginThroughPages } from './login.ts';

export const harness = (): HarnessInfo => inject('harness');

/** A port on 127.0.0.1 for the loopback redirect URI (RFC 8252: any port is accepted). */
export const redirectUri = (info: HarnessInfo, port = 53_682) => info.public_client.redirect_uri.replace('127.0.0.1', `127.0.0.1:${port}`);

export function oauthFor(info: HarnessInfo, fetchImpl?: typeof fetch): SlipwayOAuth {
  return new SlipwayOAuth({ baseUrl: info.base_url, clientId: info.public_client.client_id, redirectUri: redirectUri(info), ...(fetchImpl ? { fetch: fetchImpl } : {}) });
}

/** Signs `who` in through the real pages with the SDK's PKCE URL and exchanges the code. */
export async function login(info: HarnessInfo, scope: string, who: 'owner' | 'viewer' = 'owner', oauth = oauthFor(info)): Promise<TokenSet> {
  const request = await oauth.authorizationUrl({ scope });
  const { callback } = await loginThroughPages(request.url, info[who], oauth.redirectUri!, new CookieJar());
  return await oauth.exchangeCode(callback, request);
}

let names = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++names}`;

/** fetch that records every request it sends (method, URL, headers, body) and the status it got. */
export function recordingFetch(inner: typeof fetch = globalThis.fetch) {
  const calls: { method: string; url: string; headers: Headers; body: string | undefined; status?: number }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const body = init?.body === undefined || init.body === null ? undefined : typeof init.body === 'string' ? init.body : await request.clone().text();
    const call: (typeof calls)[number] = { method: request.method, url: request.url, headers: new Headers(request.headers), body };
    calls.push(call);
    const response = await inner(input, init);
    call.status = response.status;
    return response;
  };
  return { fetch: fetchImpl, calls };
}
