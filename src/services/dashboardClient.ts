import type { Config } from '../config/index.ts';
import type { Changes } from '../lib/changes.ts';
import type { Clock } from '../lib/clock.ts';
import { sha256Hex } from '../lib/hash.ts';
import type { Actor } from '../domain/principal.ts';
import type { ApiKeyRepository } from '../repositories/apiKeys.ts';
import type { IdempotencyKeyRepository } from '../repositories/idempotencyKeys.ts';
import type { OAuthClientRepository } from '../repositories/oauthClients.ts';
import type { UserDoc, UserRepository } from '../repositories/users.ts';
import { registerFirstPartyClient } from './firstPartyClients.ts';
import { Service } from './service.ts';

export const DASHBOARD_CLIENT_ID = 'slipway-dashboard';

export const dashboardRedirectUri = (config: Pick<Config, 'publicUrl'>) => `${config.publicUrl}/dashboard/callback`;

const ONCE_PATTERN = /^[A-Za-z0-9_-]{22}$/;
const FORM_FINGERPRINT = sha256Hex('dashboard-form');

/** A form's one-time token, claimed: say how the submission ended. */
export interface FormClaim {
  /** Kept as used (only that; never the response, which holds the secret). */
  succeeded(): Promise<void>;
  /** Released: the same form may be submitted again. */
  failed(): Promise<void>;
}

export interface DashboardClientDeps {
  oauthClients: OAuthClientRepository;
  users: UserRepository;
  /** The server's clock: the dashboard's relative ages ("5 min ago") read it. */
  clock?: Clock;
  /** For the names of the API keys that made deployments (the release view). */
  apiKeys?: ApiKeyRepository;
  idempotencyKeys: IdempotencyKeyRepository;
  changes: Changes;
  /** PUBLIC_URL, which the client's redirect URI follows. */
  config: Pick<Config, 'publicUrl'>;
}

/**
 * What the dashboard, a first-party client of this server, needs beyond the resource services: its own
 * registration as an OAuth client, the user a sign-in or session is for, and the one-time claim of a
 * form whose answer shows a secret.
 *
 * The dashboard signs people in through the authorization server's own login page (one login
 * implementation, one brute-force guard): it is a first-party public client using the authorization
 * code flow with PKCE (docs/product.md §4), and turns the code into an opaque session token instead of
 * keeping OAuth tokens.
 */
export class DashboardClientService extends Service<DashboardClientDeps> {
  /**
   * Registers the dashboard's client as this configuration defines it (its redirect URI follows
   * PUBLIC_URL), at every start; the same record however many instances start at once.
   */
  async ensureRegistered(): Promise<void> {
    // Its redirect URI may have moved with PUBLIC_URL.
    await registerFirstPartyClient(this.deps, {
      _id: DASHBOARD_CLIENT_ID,
      client_name: 'Slipway Dashboard',
      redirect_uris: [dashboardRedirectUri(this.deps.config)],
      grant_types: ['authorization_code'],
      scope: 'read',
    });
  }

  /** The user a dashboard sign-in (an authorization code's account) or session is for, or null when gone. */
  async user(id: string | undefined): Promise<UserDoc | null> {
    return id ? await this.deps.users.findById(id) : null;
  }

  /** Now, by the server's clock. */
  now(): Date {
    return this.deps.clock ? this.deps.clock.date() : new Date();
  }

  /**
   * The names people know the actors by (a user's name, an API key's name), keyed `type:id`, read in the
   * viewer's account only: an actor of another account, or one deleted since, has no name (the page
   * says its kind). Shown to anyone who may read the project: who deployed is part of a deployment.
   */
  async actorNames(accountId: string, actors: readonly Actor[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    const wanted = new Map(actors.filter((a) => a.type === 'user' || a.type === 'api_key').map((a) => [`${a.type}:${a.id}`, a]));
    await Promise.all(
      [...wanted].map(async ([key, a]) => {
        if (a.type === 'user') {
          const user = await this.deps.users.findInAccount(accountId, a.id);
          if (user) names.set(key, user.name);
        } else {
          const apiKey = await this.deps.apiKeys?.findById(a.id);
          if (apiKey && apiKey.account_id === accountId) names.set(key, apiKey.name);
        }
      }),
    );
    return names;
  }

  /**
   * Forms whose answer shows a secret (create or rotate a key, register a client, add a user with a
   * setup link) render it in the POST response itself, never stored nor shown again by a GET. Each
   * such form carries a one-time token: the first submission claims it, so a reload (the browser
   * posting again) or a double click creates nothing new and shows nothing again. The claim is an
   * insert with a unique id (idempotency_keys, swept after 24 h), atomic on MongoDB and FerretDB
   * alike. Null: a malformed token, or one already claimed.
   */
  async claimForm(sessionId: string, token: unknown): Promise<FormClaim | null> {
    if (typeof token !== 'string' || !ONCE_PATTERN.test(token)) return null;
    const keys = this.deps.idempotencyKeys;
    const id = sha256Hex(`dashboard-form\n${sessionId}\n${token}`);
    if (await keys.reserve(id, FORM_FINGERPRINT)) return null;
    return {
      succeeded: () => keys.complete(id, { status: 200, body: '{}', location: null }),
      failed: () => keys.release(id),
    };
  }
}
