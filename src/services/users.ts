import type { Clock } from '../lib/clock.ts';
import { randomBytes } from 'node:crypto';
import type { Changes } from '../lib/changes.ts';
import { conflict, invalidRequest, notFound, validationFailed } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import { writeUnique } from '../db/claims.ts';
import { createOnce } from './createOnce.ts';
import type { Repositories } from '../repositories/index.ts';
import { revokedUserKey } from '../repositories/revokedGrants.ts';
import type { UserDoc } from '../repositories/users.ts';
import { systemPrincipal, type Principal, type Role } from '../domain/principal.ts';
import type { EventLog } from './eventLog.ts';
import type { GrantRevocation } from './grantRevocation.ts';
import type { LockService } from './locking.ts';
import { authorize, can } from '../domain/policy.ts';
import type { QuotaService } from './quotas.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { ChangePasswordBody, CreateUserBody, OperatorCreateUserInput, SetPasswordInput, UpdateUserBody } from '../schemas/users.ts';
import { sha256Hex } from '../lib/hash.ts';
import { AccountRecordService, AccountRecords } from './accountRecords.ts';
export type { UserDoc } from '../repositories/users.ts';

const SETUP_TOKEN_TTL_SECONDS = 24 * 3600;
const SETUP_TOKEN_PREFIX = 'slwsu_';
const LAST_OWNER = 'The last owner of an account can be neither removed nor demoted.';
const hashToken = sha256Hex;

/** How long a claim outlives its token: a request that read the token just before expiry cannot claim it again. */
const SETUP_CLAIM_MARGIN_MS = 3600 * 1000;

/**
 * Every change of a role and every removal in an account runs under the account's users lease, one
 * at a time across instances. Inside it the owner count is exact, so "demote or remove only if another
 * owner remains" holds without transactions; and it does not rely on a conditional update being atomic,
 * which FerretDB 1.24 does not guarantee (see src/db/claims.ts).
 */
const usersLock = (accountId: string) => `users:${accountId}`;

const isSetupTokenShape = (token: unknown): token is string =>
  typeof token === 'string' && token.startsWith(SETUP_TOKEN_PREFIX) && token.length <= 200;

/** What the audit log says of a user. */
function eventData(user: UserDoc) {
  return { user_id: user._id, email: user.email, role: user.role };
}

export interface IssuedSetupToken {
  /** Shown once; the link built from it is the only copy. */
  token: string;
  expiresAt: Date;
}

export interface UserServiceDeps extends Pick<Repositories, 'users' | 'accounts' | 'userSetupTokens' | 'consents' | 'sessions' | 'revokedGrants' | 'oidcArtifacts'> {
  eventLog: EventLog;
  locks: LockService;
  /** Setup links expire by it (src/lib/clock.ts). */
  clock: Clock;
  /** Ends a user's OAuth grants (removal, password changes). */
  grants: GrantRevocation;
  quotas: QuotaService;
  /** Tells this process's session cache at once that a user's access ended. */
  changes: Changes;
}

/**
 * The users of an account (/v1/users, Settings > Users, `slipway users`): list, read, add (with a
 * password or a one-time setup link), change name and role, remove, and passwords (a user's own change,
 * a setup link's, an operator's). The owner rules and "never without an owner" live here.
 */
export class UserService extends AccountRecordService<UserServiceDeps, UserDoc, 'user'> {
  protected readonly records = new AccountRecords(this.deps.users, 'user');

  /**
   * Adds a user to the principal's account: with `password`, or without one, in which case a one-time
   * setup token (24 h) is returned for the user to choose a password. `id` is the id reserved for this
   * request (Idempotency-Key; see createOnce). Counts against the account's user quota (403
   * `quota_exceeded`).
   */
  async create(principal: Principal, input: CreateUserBody, id?: string): Promise<{ user: UserDoc; setup: IssuedSetupToken | null }> {
    authorize(principal, 'create', 'user', { account_id: principal.accountId, role: input.role });
    const userId = id ?? newId('user');
    // An earlier run of the same request (Idempotency-Key) added the user already: that one is the
    // answer, without a setup link (shown once; an admin can issue a new one).
    const { doc } = await createOnce(
      id,
      async (existing) => {
        const user = await this.deps.users.findInAccount(principal.accountId, existing);
        return user ? { user, setup: null } : null;
      },
      async () => {
        const passwordHash = input.password ? await hashPassword(input.password) : null;
        const invite = !can(principal, 'see_email_elsewhere', 'user');
        const user = await this.deps.quotas.withSlot(principal, 'users', userId, () => this.#insert({ ...input, account_id: principal.accountId }, passwordHash, userId, invite));
        const setup = input.password ? null : await this.#issueSetupToken(user);
        await this.deps.eventLog.record('user.created', principal, user, { ...eventData(user), setup_link: setup !== null }, user.created_at);
        return { user, setup };
      },
    );
    return doc;
  }

  /**
   * The operator creates a user (`slipway users create`; test and benchmark seeds): in an existing
   * account, or, without `account_id`, in a new account of their own, which no principal can act in
   * yet: hence no principal here. Always with a password; no owner rules.
   */
  async createByOperator(input: OperatorCreateUserInput): Promise<UserDoc> {
    let accountId = input.account_id;
    if (accountId) {
      if (!(await this.deps.accounts.findById(accountId))) throw validationFailed([{ field: 'account_id', message: 'no such account' }]);
    } else {
      accountId = (await this.deps.accounts.create(`${input.name}'s account`))._id;
    }
    const passwordHash = await hashPassword(input.password);
    const userId = newId('user');
    return await this.deps.quotas.withSlot(systemPrincipal(accountId), 'users', userId, () => this.#insert({ ...input, account_id: accountId! }, passwordHash, userId, false));
  }

  /**
   * Inserts a user. An e-mail already in the account is 409 `conflict`. An e-mail that signs in to
   * another account is, for an account's admin (`invite`), answered exactly as a free one: the user is
   * added all the same, as an invitation whose sign-in identity is its own id (`email_key`), so nothing
   * tells the admin the address is known elsewhere (docs/tenant-isolation.md). The operator (`invite`
   * false) gets 409 instead. Both paths make the same reads and writes: the sign-in holder is looked up
   * either way.
   */
  async #insert(data: { email: string; name: string; role: Role; account_id: string }, passwordHash: string | null, id: string, invite: boolean): Promise<UserDoc> {
    const now = new Date();
    const { users } = this.deps;
    const doc: UserDoc = {
      _id: id,
      account_id: data.account_id,
      email: data.email,
      name: data.name,
      role: data.role,
      password_hash: passwordHash,
      created_at: now,
      updated_at: now,
      last_login_at: null };
    const taken = () => conflict('A user with this email already exists in the account.');
    // Two rounds: the address may be taken elsewhere between the look-up and the insert.
    for (let round = 0; round < 2; round++) {
      const holder = await users.findByEmail(data.email);
      if (holder?.account_id === data.account_id) throw taken();
      if (holder && !invite) throw conflict('A user with this email already exists.');
      doc.email_key = holder ? `invited:${id}` : data.email;
      const inserted = await writeUnique(
        () => users.insert(doc).then(() => true),
        () => false,
      );
      if (inserted) return doc;
      // The account has it (an invitation, or a concurrent add), or someone signs in with it now.
      if (await users.emailInAccount(data.account_id, data.email)) throw taken();
    }
    throw taken();
  }

  /** A new one-time setup token for a user of the account; earlier ones stop working. Also serves as a password reset. */
  async issueSetupToken(principal: Principal, id: string): Promise<IssuedSetupToken> {
    const user = await this.get(principal, id);
    authorize(principal, 'issue_setup_link', 'user', user);
    return await this.#issueSetupToken(user);
  }

  async #issueSetupToken(user: Pick<UserDoc, '_id' | 'account_id'>): Promise<IssuedSetupToken> {
    const token = `${SETUP_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.deps.clock.date();
    const expiresAt = new Date(now.getTime() + SETUP_TOKEN_TTL_SECONDS * 1000);
    await this.deps.userSetupTokens.deleteForUser(user._id);
    await this.deps.userSetupTokens.insert({ _id: hashToken(token), user_id: user._id, account_id: user.account_id, expires_at: expiresAt, created_at: now });
    return { token, expiresAt };
  }

  /**
   * The user a setup token is for and when it expires, while the token is unused and unexpired (and the
   * user still exists); null for anything else, malformed input included. Reads only: the token stays
   * usable. The token is the credential: there is no principal yet.
   */
  async findBySetupToken(token: unknown): Promise<{ user: UserDoc; expiresAt: Date } | null> {
    if (!isSetupTokenShape(token)) return null;
    const found = await this.deps.userSetupTokens.findValid(hashToken(token), this.deps.clock.date());
    const user = found ? await this.deps.users.findById(found.user_id) : null;
    return found && user ? { user, expiresAt: found.expires_at } : null;
  }

  /**
   * Consumes a setup token and sets the password (the user, not yet signed in, acts with the token).
   * Invalid, used or expired → 400 `invalid_request`.
   */
  async completeSetup(token: string, input: SetPasswordInput): Promise<UserDoc> {
    const { users, userSetupTokens, locks } = this.deps;
    const invalid = () => invalidRequest('This setup link is invalid, already used or expired.');
    if (!isSetupTokenShape(token)) throw invalid();
    const hash = hashToken(token);
    // Checked before the slow hash so a bad link costs nothing.
    const found = await userSetupTokens.findValid(hash, this.deps.clock.date());
    if (!found) throw invalid();
    const passwordHash = await hashPassword(input.password);
    // Single use: of concurrent requests with the same token exactly one takes this never-released
    // lease (a claim, src/db/claims.ts; findOneAndDelete is not exact on FerretDB).
    // The lease outlives the token by a margin, and the token is read again once claimed: a request that
    // read it before expiry (or before the winner deleted it) and claims only after the lease ended
    // finds it expired or gone.
    const claimed = await locks.claim(`setup-token:${hash}`, Math.max(0, found.expires_at.getTime() - this.deps.clock.now()) + SETUP_CLAIM_MARGIN_MS);
    if (!claimed || !(await userSetupTokens.findValid(hash, this.deps.clock.date()))) throw invalid();
    await userSetupTokens.deleteByHash(hash);
    if (!(await users.setPasswordHash(found.user_id, passwordHash))) throw invalid();
    // A setup link also serves as a password reset: whatever was signed in with the old password ends
    // (dashboard and authorization-server sessions, OAuth grants with their tokens), as with the
    // operator's set-password.
    const revokedGrants = await this.#endSignIns(found.user_id);
    const user = (await users.findById(found.user_id))!;
    await this.deps.eventLog.record('user.password_set', { type: 'user', id: user._id }, user, { user_id: user._id, revoked_grants: revokedGrants });
    return user;
  }

  /**
   * Changes name and/or role. Every write is conditional on the role that was read; demoting an owner
   * additionally needs another owner (409 `conflict` otherwise).
   */
  async update(principal: Principal, id: string, input: UpdateUserBody): Promise<UserDoc> {
    const { users } = this.deps;
    const { accountId } = principal;
    await this.get(principal, id);
    const result = await this.deps.locks.run(usersLock(accountId), async () => {
      const user = await this.get(principal, id);
      const changes: { name?: string; role?: Role; updated_at?: Date } = {};
      if (input.name !== undefined && input.name !== user.name) changes.name = input.name;
      if (input.role !== undefined && input.role !== user.role) changes.role = input.role;
      if (!changes.name && !changes.role) return { user, before: user, changes: null };
      authorize(principal, changes.role ? 'change_role' : 'update', 'user', { ...user, to: changes.role });
      const demotesOwner = user.role === 'owner' && changes.role !== undefined;
      if (demotesOwner) await this.#assertAnotherOwnerRemains(accountId);
      changes.updated_at = new Date();
      const updated = await users.updateIfRole(accountId, user._id, user.role, changes);
      if (!updated) throw conflict('The user was changed by another request at the same time; retry.');
      if (demotesOwner && (await users.countOwners(accountId)) === 0) {
        // Only reachable if something outside this lease rewrote an owner meanwhile: undo, refuse.
        await users.updateIfRole(accountId, user._id, changes.role!, { role: 'owner' });
        throw conflict(LAST_OWNER);
      }
      return { user: updated, before: user, changes };
    });
    if (!result.changes) return result.user;
    const { changes, before, user: updated } = result;
    // A new role applies from the user's next request: the repository dropped its cached copy (access
    // tokens), and this drops their cached dashboard sessions. Other instances: within their cache bounds.
    if (changes.role) this.deps.changes.emit('userAccessRevoked', updated._id);
    const changed = Object.keys(changes).filter((k) => k !== 'updated_at');
    const data = { user_id: updated._id, changed, ...(changes.role ? { role: { from: before.role, to: changes.role } } : {}) };
    await this.deps.eventLog.record('user.updated', principal, { account_id: accountId }, data, changes.updated_at);
    return updated;
  }

  async #assertAnotherOwnerRemains(accountId: string): Promise<void> {
    if ((await this.deps.users.countOwners(accountId)) <= 1) throw conflict(LAST_OWNER);
  }

  /**
   * Removes a user and everything that lets them act (see #revokeAccess). The last owner cannot be
   * removed (409 `conflict`).
   */
  async delete(principal: Principal, id: string): Promise<{ user: UserDoc; revokedGrants: number }> {
    return await this.#delete(principal, id, { lastOwnerStays: true });
  }

  /**
   * Removes a user as part of deleting their whole account (AccountService.delete): as `delete`, but the
   * last owner goes too. The operator's alone.
   */
  async deleteWithAccount(principal: Principal, id: string): Promise<{ user: UserDoc; revokedGrants: number }> {
    authorize(principal, 'delete', 'account');
    return await this.#delete(principal, id, { lastOwnerStays: false });
  }

  async #delete(principal: Principal, id: string, { lastOwnerStays }: { lastOwnerStays: boolean }): Promise<{ user: UserDoc; revokedGrants: number }> {
    const { accountId } = principal;
    await this.get(principal, id);
    const deleted = await this.deps.locks.run(usersLock(accountId), async () => {
      const user = await this.get(principal, id);
      authorize(principal, 'delete', 'user', user);
      if (lastOwnerStays && user.role === 'owner') await this.#assertAnotherOwnerRemains(accountId);
      const removed = await this.deps.users.deleteIfRole(accountId, user._id, user.role);
      if (!removed) throw conflict('The user was changed by another request at the same time; retry.');
      return removed;
    });
    // The user is gone first: from here no login, code exchange or refresh can create anything new.
    const revokedGrants = await this.#revokeAccess(deleted._id);
    await this.deps.quotas.release('users', deleted._id);
    await this.deps.eventLog.record('user.deleted', principal, { account_id: accountId }, { ...eventData(deleted), revoked_grants: revokedGrants });
    return { user: deleted, revokedGrants };
  }

  /**
   * Revokes every grant, authorization-server session, dashboard session, consent and setup link of a
   * user: their OAuth grants are listed in `revoked_grants` (so their access JWTs are refused), then
   * deleted with their refresh tokens and codes. Grants are found through the consents collection
   * (user_id → grant_id, written at every consent) and, for any the consents no longer point to, by
   * scanning Grant payloads. Returns the number of grants.
   */
  async #revokeAccess(userId: string): Promise<number> {
    const { revokedGrants, consents, oidcArtifacts, sessions, userSetupTokens, changes } = this.deps;
    // First, so this instance refuses the user's access tokens from the next request on (and every other
    // instance within revocationRefreshSeconds), whatever grants the searches below find.
    await revokedGrants.add(revokedUserKey(userId));
    const grantIds = [...(await consents.grantIdsForUser(userId)), ...(await oidcArtifacts.grantIdsForAccount(userId))];
    const count = await this.deps.grants.revoke(grantIds);
    await consents.deleteForUser(userId);
    await oidcArtifacts.deleteSessionsForAccount(userId);
    await sessions.deleteForUser(userId);
    await userSetupTokens.deleteForUser(userId);
    changes.emit('userAccessRevoked', userId);
    return count;
  }

  /**
   * Ends a user's sign-ins after a password change: their OAuth grants (refresh tokens, codes; access
   * JWTs refused through `revoked_grants`), consents, authorization-server sessions and dashboard
   * sessions, but not the credential making the change (`keep`: a dashboard session or an OAuth grant,
   * as GitHub keeps the session that changed the password). Returns the number of grants revoked.
   */
  async #endSignIns(userId: string, keep: { sessionPrefix?: string; grantId?: string } = {}): Promise<number> {
    const { consents, oidcArtifacts, sessions, changes } = this.deps;
    const grantIds = [...(await consents.grantIdsForUser(userId)), ...(await oidcArtifacts.grantIdsForAccount(userId))].filter((g) => g !== keep.grantId);
    const count = await this.deps.grants.revoke(grantIds);
    await consents.deleteForUser(userId);
    await oidcArtifacts.deleteSessionsForAccount(userId);
    if (keep.sessionPrefix) await sessions.deleteForUserExcept(userId, keep.sessionPrefix);
    else await sessions.deleteForUser(userId);
    changes.emit('userAccessRevoked', userId);
    return count;
  }

  /**
   * Sets a user's password without the current one (the admin CLI: a locked-out sole owner's way back
   * in). Everything the user was signed in with ends: dashboard and authorization-server sessions, OAuth
   * grants (so their apps' refresh and access tokens) and any unused setup link.
   */
  async setPassword(principal: Principal, id: string, input: SetPasswordInput): Promise<UserDoc> {
    const { users, userSetupTokens } = this.deps;
    authorize(principal, 'set_password', 'user');
    const user = await this.get(principal, id);
    if (!(await users.setPasswordHash(user._id, await hashPassword(input.password)))) throw notFound('user');
    const revokedGrants = await this.#endSignIns(user._id);
    await userSetupTokens.deleteForUser(user._id);
    await this.deps.eventLog.record('user.password_set', principal, { account_id: principal.accountId }, { user_id: user._id, revoked_grants: revokedGrants });
    return (await users.findById(user._id)) ?? user;
  }

  /**
   * The principal's own password change (a signed-in user). A wrong current password is 422
   * `validation_failed` on `current_password`; so is reusing the current password. Every other sign-in
   * of the user ends (other dashboard sessions, OAuth grants and their tokens, authorization-server
   * sessions): the credential making the change (this dashboard session, or this app's grant) keeps
   * working.
   */
  async changeOwnPassword(principal: Principal, input: ChangePasswordBody): Promise<void> {
    authorize(principal, 'change_own_password', 'user');
    const { current_password, new_password } = input;
    const user = await this.get(principal, principal.id);
    if (!user.password_hash || !(await verifyPassword(user.password_hash, current_password)))
      throw validationFailed([{ field: 'current_password', message: 'is not correct' }]);
    if (current_password === new_password) throw validationFailed([{ field: 'new_password', message: 'must differ from the current password' }]);
    // Conditional on the hash that was verified: a concurrent change wins, this one is refused.
    if (!(await this.deps.users.replacePasswordHash(user._id, user.password_hash, await hashPassword(new_password))))
      throw conflict('The password was changed by another request at the same time.');
    const keep =
      principal.credential === 'session' ? { sessionPrefix: principal.credentialId } : principal.credential === 'access_token' ? { grantId: principal.credentialId } : {};
    const revokedGrants = await this.#endSignIns(user._id, keep);
    await this.deps.eventLog.record('user.password_changed', principal, user, { user_id: user._id, revoked_grants: revokedGrants });
  }
}
