import type { TestServer } from './server.ts';

/** The token endpoint's answer, whatever it is (a race's losers are answers too, not exceptions). */
export interface TokenAnswer {
  status: number;
  headers: Headers;
  body: { access_token?: string; refresh_token?: string; error?: string; error_description?: string; [claim: string]: unknown };
}

/**
 * POST /oauth/token with a form, on one instance (its own address: instances share PUBLIC_URL); answers
 * the status, headers and JSON body as they came. `headers`: e.g. `authorization` (client_secret_basic),
 * `x-forwarded-for` (the source, behind a trusted proxy), `dpop`.
 */
export async function tokenPost(server: Pick<TestServer, 'url'>, form: Record<string, string>, headers: Record<string, string> = {}): Promise<TokenAnswer> {
  const response = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as TokenAnswer['body'] };
}

/** The status of GET /v1/users/me with an access token, on one instance. */
export async function v1Status(server: TestServer, token: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
  await response.body?.cancel();
  return response.status;
}

/** `n` calls of `fn` at once (call `i` gets `i`): their results, in order. The way tests fire a race. */
export async function race<T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  return await Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
}
