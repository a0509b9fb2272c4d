import { randomBytes } from 'node:crypto';
import { connectDatabase, type Database } from '../../src/db/mongo.ts';
import { createRepositories, type Repositories } from '../../src/repositories/index.ts';
import { createChanges, type Changes } from '../../src/lib/changes.ts';
import { systemPrincipal } from '../../src/domain/principal.ts';
import { obtainTokens, type TokenResponse } from '../../test/support/oauthDriver.ts';
import { buildServices } from '../../test/support/services.ts';

/** Never contacted: the benchmark reads the code from the redirect's Location header. */
export const BENCH_REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface Seed {
  user: { id: string; accountId: string; email: string; password: string };
  /** client_secret_basic; authorization_code, refresh_token and client_credentials. */
  confidentialClient: { clientId: string; clientSecret: string; redirectUri: string };
  /** token_endpoint_auth_method none (an SPA); authorization_code and refresh_token. */
  publicClient: { clientId: string; redirectUri: string };
  /** The same database the server uses, for scenarios that seed more (projects, API keys, ...). */
  database: Database;
  repos: Repositories & { changes: Changes };
  /** Where that database is (for baseline servers that query it directly). */
  uri: string;
  dbName: string;
}

/**
 * Seeds through the services (the same code the CLI and API use), against the server's database, after
 * the server has started (so its indexes exist).
 */
export async function seed(uri: string, dbName: string): Promise<Seed> {
  const database = await connectDatabase(uri, dbName);
  const changes = createChanges();
  const repos = { ...createRepositories(database.db, { changes }), changes };
  const services = buildServices(repos, { changes });
  const password = `bench-${randomBytes(12).toString('base64url')}`;
  const user = await services.users.createByOperator({ email: `bench-${randomBytes(4).toString('hex')}@example.com`, name: 'Bench Owner', role: 'owner', password });
  const clients = services.oauthClients;
  const operator = systemPrincipal(user.account_id);
  const confidential = await clients.registerAsOperator(operator, {
    client_name: 'Bench confidential client',
    redirect_uris: [BENCH_REDIRECT_URI],
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
    scope: 'read write',
    // Consent is still asked for (not first-party) so the flow exercises the consent page too.
    first_party: false,
  });
  const spa = await clients.registerAsOperator(operator, {
    client_name: 'Bench public client',
    redirect_uris: [BENCH_REDIRECT_URI],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read write',
  });
  return {
    user: { id: user._id, accountId: user.account_id, email: user.email, password },
    confidentialClient: { clientId: confidential.client._id, clientSecret: confidential.clientSecret!, redirectUri: BENCH_REDIRECT_URI },
    publicClient: { clientId: spa.client._id, redirectUri: BENCH_REDIRECT_URI },
    database,
    repos,
    uri,
    dbName,
  };
}

/**
 * A user's tokens from the seeded confidential client, through the server's real sign-in and consent
 * pages (`user` defaults to the seeded owner).
 */
export async function signInConfidential(issuer: string, seeded: Seed, scope = 'read write', user: { email: string; password: string } = seeded.user): Promise<TokenResponse> {
  const { confidentialClient } = seeded;
  return await obtainTokens({
    issuer,
    clientId: confidentialClient.clientId,
    clientSecret: confidentialClient.clientSecret,
    redirectUri: confidentialClient.redirectUri,
    scope,
    email: user.email,
    password: user.password,
  });
}
