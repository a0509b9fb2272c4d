import type { RequestOptions } from '../core.js';
import type { ChangePasswordParams, CreatedUser, CreateUserParams, Page, PageParams, UpdateUserParams, User } from '../types.js';
import { Resource, seg } from './base.js';

/** `client.users`: the account's users (managing them needs `admin`). */
export class Users extends Resource {
  list(params?: PageParams, options?: RequestOptions): Promise<Page<User>> {
    return this.listPage('/v1/users', params, options);
  }

  listAll(params?: PageParams, options?: RequestOptions): AsyncGenerator<User, void, undefined> {
    return this.listEvery('/v1/users', params, options);
  }

  /** Adds a user; without `password`, the response carries a one-time setup link. */
  create(params: CreateUserParams, options?: RequestOptions): Promise<CreatedUser> {
    return this.api.request({ method: 'POST', path: '/v1/users', body: params, idempotent: true }, options);
  }

  /** The user the credential acts for. */
  me(options?: RequestOptions): Promise<User> {
    return this.api.request({ method: 'GET', path: '/v1/users/me' }, options);
  }

  /** Changes the signed-in user's own password. */
  changePassword(params: ChangePasswordParams, options?: RequestOptions): Promise<void> {
    return this.api.request({ method: 'POST', path: '/v1/users/me/password', body: params }, options);
  }

  get(userId: string, options?: RequestOptions): Promise<User> {
    return this.api.request({ method: 'GET', path: `/v1/users/${seg(userId)}` }, options);
  }

  update(userId: string, params: UpdateUserParams, options?: RequestOptions): Promise<User> {
    return this.api.request({ method: 'PATCH', path: `/v1/users/${seg(userId)}`, body: params }, options);
  }

  delete(userId: string, options?: RequestOptions): Promise<void> {
    return this.api.request({ method: 'DELETE', path: `/v1/users/${seg(userId)}` }, options);
  }
}
