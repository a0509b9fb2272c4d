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
import type { IdentityDoc } from '../repositories/identities.ts';
import type { InvitationService, IssuedInvitation } from './invitations.ts';
import { systemPrincipal, type Principal, type Role } from '../domain/principal.ts';
import type { EventLog } from './eventLog.ts';
import type { GrantRevocation } from './grantRevocation.ts';
import type { LockService } from './locking.ts';
import { authorize } from '../domain/policy.ts';
import type { QuotaService } from './quotas.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { ChangePasswordBody, CreateUserBody, OperatorCreateUserInput, SetPasswordInput, UpdateUserBody } from '../schemas/users.ts';
import { sha256Hex } from '../lib/hash.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { AccountDoc } from '../repositories/accounts.ts';
import { AccountRecordService, AccountRecords } from './accountRecords.ts';
export type { UserDoc, MembershipStatus } from '../repositories/users.ts';

const SETUP_TOKEN_TTL_SECONDS = 24 * 3600;
const SETUP_TOKEN_PREFIX = 'slwsu_';
const LAST_OWNER = 'The last owner of an account can be neither removed nor demoted.';
const hashToken = sha256Hex;

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

export interface UserServiceDeps extends Pick<Repositories, 'users' | 'identities' | 'accounts' | 'userSetupTokens' | 'consents' | 'sessions' | 'revokedGrants' | 'oidcArtifacts'> {
  /** Invitations' links (made with every user an admin adds) and their end when the user goes. */
  invitations: InvitationService;
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
 * The users of an account, its members (/v1/users, Settings > Users, `slipway users`): list, read,
 * invite (the answer is InvitationService's), change name and role, remove, and the person's password
 * (their own change, a setup link's, an operator's). The owner rules and "never without an owner" live
 * here; a person's memberships (GET /v1/accounts) too.
 */
export class UserService extends AccountRecordService<UserServiceDeps, UserDoc, 'user'> {
  protected readonly records = new AccountRecords(this.deps.users, 'user');

  /**
   * Invites someone to the principal's account (docs/product.md §11): a user with status `invited` and a
   * one-time invitation link (7 days) that the person opens to accept or decline. The same for every
   * address that is not yet a member of the account, whether or not it signs in anywhere: nothing is
   * looked up (docs/tenant-isolation.md). `password`, when given, becomes the person's password if the
   * address has no sign-in when they accept; it never touches an existing one. `id` is the id reserved
   * for this request (Idempotency-Key; see createOnce). Counts against the account's user quota (403
   * `quota_exceeded`); an address already in the account is 409 `conflict`.
   */
  async create(principal: Principal, input: CreateUserBody, id?: string): Promise<{ user: UserDoc; invitation: IssuedInvitation | null }> {
    authorize(principal, 'create', 'user', { account_id: principal.accountId, role: input.role });
    const userId = id ?? newId('user');
    // An earlier run of the same request (Idempotency-Key) added the user already: that one is the
    // answer, without the link (shown once).
    const { doc } = await createOnce<{ user: UserDoc; invitation: IssuedInvitation | null }>(
      id,
      async (existing) => {
        const user = await this.deps.users.findInAccount(principal.accountId, existing);
        return user ? { user, invitation: null } : null;
      },
      async () => {
        const presetHash = input.password ? await hashPassword(input.password) : null;
        const user = await this.deps.quotas.withSlot(principal, 'users', userId, () =>
          this.#insertMember({ ...input, account_id: principal.accountId }, userId, { identity_id: null, status: 'invited' }),
        );
        const invitation = await this.deps.invitations.issue(user, presetHash);
        await this.deps.eventLog.record('user.created', principal, user, { ...eventData(user), invited: true }, user.created_at);
        return { user, invitation };
      },
    );
    return doc;
  }

  /**
   * The operator creates a user (`slipway users create`; test and benchmark seeds): a new person with a
   * password and their active membership, in an existing account or, without `account_id`, in a new
   * account of their own, which no principal can act in yet: hence no principal here. No owner rules.
   * An address that already signs in is 409 `conflict` (the operator sees every account).
   */
  async createByOperator(input: OperatorCreateUserInput): Promise<UserDoc> {
    let accountId = input.account_id;
    if (accountId) {
      if (!(await this.deps.accounts.findById(accountId))) throw validationFailed([{ field: 'account_id', message: 'no such account' }]);
    }
    const passwordHash = await hashPassword(input.password);
    const signsIn = () => conflict('A user with this email already exists.');
    if (await this.deps.identities.findByEmail(input.email)) throw signsIn();
    accountId ??= (await this.deps.accounts.create(`${input.name}'s account`))._id;
    const now = this.deps.clock.date();
    const person: IdentityDoc = { _id: newId('identity'), email: input.email, password_hash: passwordHash, created_at: now, updated_at: now };
    if (!(await writeUnique(() => this.deps.identities.insert(person).then(() => true), () => false))) throw signsIn();
    const userId = newId('user');
    try {
      return await this.deps.quotas.withSlot(systemPrincipal(accountId), 'users', userId, () =>
        this.#insertMember({ ...input, account_id: accountId }, userId, { identity_id: person._id, status: 'active' }),
      );
    } catch (err) {
      await this.deps.identities.collection.deleteOne({ _id: person._id });
      throw err;
    }
  }

  /**
   * The signed-in person's memberships (GET /v1/accounts): every account they are an active member of,
   * with their role there, oldest first. Users only (a client or an API key is no person). Listing
   * them widens nothing: the credential still acts in its own account alone.
   */
  async memberships(principal: Principal, page: PageRequest): Promise<PageResult<{ user: UserDoc; account: AccountDoc }>> {
    authorize(principal, 'list_memberships', 'account');
    const me = await this.get(principal, principal.id);
    const { items, total } = me.identity_id ? await this.deps.users.pageForIdentity(me.identity_id, page) : { items: [], total: 0 };
    const accounts = await Promise.all(items.map((user) => this.deps.accounts.findById(user.account_id)));
    return {
      items: items.flatMap((user, i) => {
        const account = accounts[i];
        return account ? [{ user, account }] : [];
      }),
      total,
    };
  }

  /** Inserts a membership. An e-mail already in the account (a member or an invitation) is 409 `conflict`. */
  async #insertMember(data: { email: string; name: string; role: Role; account_id: string }, id: string, who: Pick<UserDoc, 'identity_id' | 'status'>): Promise<UserDoc> {
    const now = this.deps.clock.date();
    const doc: UserDoc = { _id: id, account_id: data.account_id, email: data.email, ...who, name: data.name, role: data.role, created_at: now, updated_at: now, last_login_at: null };
    const inserted = await writeUnique(() => this.deps.users.insert(doc).then(() => true), () => false);
    if (!inserted) throw conflict('A user with this email already exists in the account.');
    return doc;
  }

  /** A new one-time setup token for a user of the account; earlier ones stop working. Also serves as a password reset. */
  async issueSetupToken(principal: Principal, id: string): Promise<IssuedSetupToken> {
    const user = await this.get(principal, id);
    authorize(principal, 'issue_setup_link', 'user', user);
    // An invitation has no password to set: its own link is how the person comes in.
    if (user.status === 'invited') throw conflict('This user has not accepted their invitation yet; remove them and invite them again for a new link.');
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
    const claimed = await locks.claimUntil(`setup-token:${hash}`, found.expires_at, this.deps.clock.now());
    if (!claimed || !(await userSetupTokens.findValid(hash, this.deps.clock.date()))) throw invalid();
    await userSetupTokens.deleteByHash(hash);
    const member = await users.findById(found.user_id);
    if (!member?.identity_id || !(await this.deps.identities.setPasswordHash(member.identity_id, passwordHash, this.deps.clock.date()))) throw invalid();
    // A setup link also serves as a password reset: whatever the person was signed in with, in every
    // account, ends (dashboard and authorization-server sessions, OAuth grants with their tokens), as
    // with the operator's set-password.
    const revokedGrants = await this.#endSignIns(member.identity_id);
    const user = (await users.findById(found.user_id)) ?? member;
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
    await this.deps.invitations.revokeFor(deleted._id);
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
   * Ends a person's sign-ins after a password change, in every account they are a member of: their
   * OAuth grants (refresh tokens, codes; access JWTs refused through `revoked_grants`), consents,
   * authorization-server sessions and dashboard sessions, but not the credential making the change
   * (`keep`: a dashboard session or an OAuth grant, as GitHub keeps the session that changed the
   * password). Returns the number of grants revoked.
   */
  async #endSignIns(identityId: string, keep: { sessionPrefix?: string; grantId?: string } = {}): Promise<number> {
    const { consents, oidcArtifacts, sessions, changes } = this.deps;
    let count = 0;
    for (const { _id: userId } of await this.deps.users.activeForIdentity(identityId)) {
      const grantIds = [...(await consents.grantIdsForUser(userId)), ...(await oidcArtifacts.grantIdsForAccount(userId))].filter((g) => g !== keep.grantId);
      count += await this.deps.grants.revoke(grantIds);
      await consents.deleteForUser(userId);
      await oidcArtifacts.deleteSessionsForAccount(userId);
      if (keep.sessionPrefix) await sessions.deleteForUserExcept(userId, keep.sessionPrefix);
      else await sessions.deleteForUser(userId);
      changes.emit('userAccessRevoked', userId);
    }
    return count;
  }

  /** The person a member of the account is (404 for an invitation: nobody signs in as it yet). */
  async #personOf(user: UserDoc): Promise<IdentityDoc> {
    const person = user.identity_id ? await this.deps.identities.findById(user.identity_id) : null;
    if (!person) throw notFound('user');
    return person;
  }

  /**
   * Sets a member's password without the current one (the admin CLI: a locked-out sole owner's way back
   * in). It is the person's password, in every account they belong to; everything they were signed in
   * with ends: dashboard and authorization-server sessions, OAuth grants (so their apps' refresh and
   * access tokens) and any unused setup link.
   */
  async setPassword(principal: Principal, id: string, input: SetPasswordInput): Promise<UserDoc> {
    const { users, userSetupTokens } = this.deps;
    authorize(principal, 'set_password', 'user');
    const user = await this.get(principal, id);
    const person = await this.#personOf(user);
    if (!(await this.deps.identities.setPasswordHash(person._id, await hashPassword(input.password), this.deps.clock.date()))) throw notFound('user');
    const revokedGrants = await this.#endSignIns(person._id);
    await userSetupTokens.deleteForUser(user._id);
    await this.deps.eventLog.record('user.password_set', principal, { account_id: principal.accountId }, { user_id: user._id, revoked_grants: revokedGrants });
    return (await users.findById(user._id)) ?? user;
  }

  /**
   * The principal's own password change (a signed-in user): the person's password, for every account
   * they are a member of. A wrong current password is 422 `validation_failed` on `current_password`;
   * so is reusing the current password. Every other sign-in of the person ends, in every account
   * (other dashboard sessions, OAuth grants and their tokens, authorization-server sessions): the
   * credential making the change (this dashboard session, or this app's grant) keeps working.
   */
  async changeOwnPassword(principal: Principal, input: ChangePasswordBody): Promise<void> {
    authorize(principal, 'change_own_password', 'user');
    const { current_password, new_password } = input;
    const user = await this.get(principal, principal.id);
    const person = await this.#personOf(user);
    if (!person.password_hash || !(await verifyPassword(person.password_hash, current_password)))
      throw validationFailed([{ field: 'current_password', message: 'is not correct' }]);
    if (current_password === new_password) throw validationFailed([{ field: 'new_password', message: 'must differ from the current password' }]);
    // Conditional on the hash that was verified: a concurrent change wins, this one is refused.
    if (!(await this.deps.identities.replacePasswordHash(person._id, person.password_hash, await hashPassword(new_password), this.deps.clock.date())))
      throw conflict('The password was changed by another request at the same time.');
    const keep =
      principal.credential === 'session' ? { sessionPrefix: principal.credentialId } : principal.credential === 'access_token' ? { grantId: principal.credentialId } : {};
    const revokedGrants = await this.#endSignIns(person._id, keep);
    await this.deps.eventLog.record('user.password_changed', principal, user, { user_id: user._id, revoked_grants: revokedGrants });
  }
}
