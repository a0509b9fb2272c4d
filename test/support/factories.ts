import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { systemPrincipal, type Role } from '../../src/domain/principal.ts';
import { OperatorClientInput } from '../../src/schemas/oauthClients.ts';
import { parseInput } from '../../src/schemas/parse.ts';
import { OperatorCreateUserInput } from '../../src/schemas/users.ts';
import { obtainTokens } from './oauthDriver.ts';
import type { TestServer } from './server.ts';
import type { TestUser } from './tokens.ts';

export const TEST_PASSWORD = 'correct horse battery staple';

export async function makeUser(server: TestServer, overrides: { role?: Role; email?: string; password?: string; account_id?: string; name?: string } = {}) {
  const password = overrides.password ?? TEST_PASSWORD;
  const input = parseInput(OperatorCreateUserInput, {
    email: overrides.email ?? `user-${randomBytes(4).toString('hex')}@example.com`,
    name: overrides.name ?? 'Test User',
    role: overrides.role ?? 'owner',
    password,
    ...(overrides.account_id ? { account_id: overrides.account_id } : {}),
  });
  const user = await server.services.users.createByOperator(input);
  return { ...user, password };
}

/** A client registered by the operator (as `slipway clients create`), so it may be first-party. */
export async function makeClient(server: TestServer, overrides: Partial<z.input<typeof OperatorClientInput>> & { account_id: string }) {
  const { account_id, ...fields } = overrides;
  const input = parseInput(OperatorClientInput, { client_name: 'Test App', redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none', ...fields });
  return await server.services.oauthClients.registerAsOperator(systemPrincipal(account_id), input);
}

/**
 * The invited person accepts through the service, as the invitation page does (its own tests drive the
 * page): with their password, or, new to Slipway, the one they choose. `created` is the POST /v1/users answer.
 */
export async function acceptInvitation(server: TestServer, created: { invitation_url: string }, password: string) {
  const token = new URL(created.invitation_url).searchParams.get('token')!;
  return await server.services.invitations.accept(token, { password, source: 'test' });
}

/**
 * A first-party confidential client (client_secret_basic, code and refresh) of `user`'s account, and the
 * tokens `user` got through it by signing in on the real pages: a refresh token to present.
 */
export async function signedInConfidential(server: TestServer, user: Pick<TestUser, 'accountId' | 'email' | 'password'>, scope = 'read write') {
  const { client, clientSecret } = await makeClient(server, {
    account_id: user.accountId,
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['authorization_code', 'refresh_token'],
    first_party: true,
  });
  const credentials = { clientId: client._id, clientSecret: clientSecret! };
  const tokens = await obtainTokens({ issuer: server.issuer, ...credentials, redirectUri: 'http://127.0.0.1:9/callback', scope, email: user.email, password: user.password });
  return { client, credentials, tokens };
}
