// File generated from our OpenAPI document (Slipway API 1.0.0) by scripts/generate.mjs. Do not edit:
// run `sh scripts/generate.sh BASE_URL` (the suite fails when this file differs from what the server serves).

import type { RequestOptions } from '../core.js';
import type { components, operations } from '../generated/openapi.js';
import { Resource } from '../resource.js';

type Schemas = components['schemas'];

/**
 * `slipway.users`: the operations tagged "Users".
 */
export class Users extends Resource {
  /**
   * List users of the account.
   *
   * Oldest first. Only for user and client credentials.
   *
   * `GET /v1/users`
   */
  list(params?: operations['listUsers']['parameters']['query'], options?: RequestOptions): Promise<Schemas['UserList']> {
    return this.call({ method: 'GET', path: '/v1/users', query: params }, options);
  }

  /**
   * Every item of `list`, page after page: the next page is requested only when the loop reaches
   * it, and leaving the loop stops fetching. Starts at `params.page` (default 1).
   *
   * `GET /v1/users`
   */
  listAll(params?: operations['listUsers']['parameters']['query'], options?: RequestOptions): AsyncGenerator<Schemas['User'], void, undefined> {
    return this.paginate({ method: 'GET', path: '/v1/users', query: params }, options);
  }

  /**
   * Invite someone to the account.
   *
   * Adds a user with `status: invited` and answers, once, `invitation_url`: the person opens it,
   * signs in (or, new to Slipway, chooses a password; `password` here sets one for them instead)
   * and accepts or declines; it expires after 7 days, and removing the user revokes it. Slipway
   * sends no e-mail. The answer is the same whether or not the address signs in anywhere
   * (docs/tenant-isolation.md). Only an owner may invite an owner. An e-mail already in the account
   * is `conflict`. Only for user and client credentials.
   *
   * `POST /v1/users` (safe to retry: sends an `Idempotency-Key`)
   */
  create(params: Schemas['CreateUser'], options?: RequestOptions): Promise<Schemas['CreatedUser']> {
    return this.call({ method: 'POST', path: '/v1/users', body: params, idempotent: true }, options);
  }

  /**
   * Get the signed-in user.
   *
   * A user removed a moment ago may still hold a working credential for a few seconds; reading them
   * then is `not_found`. Only for user credentials.
   *
   * `GET /v1/users/me`
   */
  me(options?: RequestOptions): Promise<Schemas['User']> {
    return this.call({ method: 'GET', path: '/v1/users/me' }, options);
  }

  /**
   * Change your own password.
   *
   * Needs the current password (a wrong one, or a new password equal to it, is
   * `validation_failed`). Any scope will do, so a viewer can change their own password too: the
   * current password is the proof. Every other sign-in of the user ends at once: their other
   * dashboard sessions, the grants of their apps (refresh and access tokens) and
   * authorization-server sessions. The credential making the change (this session, or this app’s
   * grant) keeps working. Only for user credentials.
   *
   * `POST /v1/users/me/password`
   */
  changePassword(params: Schemas['ChangePassword'], options?: RequestOptions): Promise<void> {
    return this.call({ method: 'POST', path: '/v1/users/me/password', body: params }, options);
  }

  /**
   * Get a user.
   *
   * Only for user and client credentials.
   *
   * `GET /v1/users/{user_id}`
   */
  get(userId: string, options?: RequestOptions): Promise<Schemas['User']> {
    return this.call({ method: 'GET', path: '/v1/users/{user_id}', pathParams: [userId] }, options);
  }

  /**
   * Rename a user or change their role.
   *
   * Only an owner may grant `owner` or change an owner; the last owner cannot be demoted
   * (`conflict`). A new role takes effect on the user’s existing tokens within 30 s. Only for user
   * and client credentials.
   *
   * `PATCH /v1/users/{user_id}`
   */
  update(userId: string, params: Schemas['UpdateUser'], options?: RequestOptions): Promise<Schemas['User']> {
    return this.call({ method: 'PATCH', path: '/v1/users/{user_id}', pathParams: [userId], body: params }, options);
  }

  /**
   * Remove a user.
   *
   * For an invited user, revokes the invitation. Otherwise revokes everything that lets the user
   * act in this account (and nothing in the person’s other accounts): OAuth grants (their refresh
   * tokens at once; their access tokens at once on the instance that removed them, within
   * `REVOCATION_REFRESH_SECONDS` (15 s) elsewhere), sign-in and dashboard sessions, setup links.
   * Only an owner may remove an owner; the last owner cannot be removed (`conflict`). Only for user
   * and client credentials.
   *
   * `DELETE /v1/users/{user_id}`
   */
  delete(userId: string, options?: RequestOptions): Promise<void> {
    return this.call({ method: 'DELETE', path: '/v1/users/{user_id}', pathParams: [userId] }, options);
  }
}
