import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Changes } from '../lib/changes.ts';
import { conflict, forbidden, invalidRequest, notFound, validationFailed } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import { isDuplicateKeyError } from '../db/duplicateKey.ts';
import { createOnce } from './createOnce.ts';
import type { AccountRepository } from '../repositories/accounts.ts';
import type { ConsentRepository } from '../repositories/consents.ts';
import type { EventRepository } from '../repositories/events.ts';
import type { LockRepository } from '../repositories/locks.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { SessionRepository } from '../repositories/sessions.ts';
import { revokedUserKey } from '../repositories/revokedGrants.ts';
import { type UserDoc, type UserRepository } from '../repositories/users.ts';
import { ROLES, type Role } from '../domain/principal.ts';
import type { UserSetupTokenRepository } from '../repositories/userSetupTokens.ts';
import { recordEvent, type ServiceContext } from './events.ts';
import { revokeGrants, type GrantRevocationDeps } from './grantRevocation.ts';
import { withLock } from './locking.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../schemas/users.ts';
import { sha256Hex } from '../lib/hash.ts';

export const CreateUserInput = z
  .object({
    email: z.string().trim().toLowerCase().email().max(254),
    name: z.string().trim().min(1).max(100),
    role: z.enum(ROLES),
    password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH),
    /** Existing account to join; a new account is created when absent. */
    account_id: z.string().optional(),
  })
  .strict();
export type CreateUserInput = z.input<typeof CreateUserInput>;

export function zodDetails(error: z.ZodError): { field: string; message: string }[] {
  return error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
}

export async function createUser(
  repos: { users: UserRepository; accounts: AccountRepository },
  input: CreateUserInput,
): Promise<UserDoc> {
  const parsed = CreateUserInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const data = parsed.data;
  let accountId = data.account_id;
  if (accountId) {
    if (!(await repos.accounts.findById(accountId))) throw validationFailed([{ field: 'account_id', message: 'no such account' }]);
  } else {
    accountId = (await repos.accounts.create(`${data.name}'s account`))._id;
  }
  return await insertUser(repos, { ...data, account_id: accountId }, await hashPassword(data.password));
}

async function insertUser(
  repos: { users: UserRepository },
  data: { email: string; name: string; role: Role; account_id: string },
  passwordHash: string | null,
  reservedId?: string,
): Promise<UserDoc> {
  const now = new Date();
  const doc: UserDoc = {
    _id: reservedId ?? newId('usr', now.getTime()),
    account_id: data.account_id,
    email: data.email,
    name: data.name,
    role: data.role,
    password_hash: passwordHash,
    created_at: now,
    updated_at: now,
    last_login_at: null,
  };
  try {
    await repos.users.insert(doc);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw conflict('A user with this email already exists.');
    throw err;
  }
  return doc;
}

export function presentUser(doc: UserDoc) {
  return {
    id: doc._id,
    account_id: doc.account_id,
    email: doc.email,
    name: doc.name,
    role: doc.role,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
    last_login_at: doc.last_login_at ? doc.last_login_at.toISOString() : null,
  };
}

// ---------------------------------------------------------------------------------------------------
// Account user management (/v1/users): list, read, add (with a password or a one-time setup link),
// change name and role, delete, and a user's own password change.

export const SETUP_TOKEN_TTL_SECONDS = 24 * 3600;
const SETUP_TOKEN_PREFIX = 'slwsu_';
const LAST_OWNER = 'The last owner of an account can be neither removed nor demoted.';
const hashToken = sha256Hex;

export interface UserAdminDeps {
  users: UserRepository;
  events: EventRepository;
  locks: LockRepository;
  userSetupTokens: UserSetupTokenRepository;
}

/**
 * The acting user's role, when the actor is a user; absent for the admin CLI. Only an owner may grant
 * the owner role or change or remove an owner (403 `forbidden` otherwise).
 */
export interface UserAdminContext extends ServiceContext {
  actorRole?: Role;
}

export const AddUserInput = z
  .object({
    email: z.string().trim().toLowerCase().email().max(254),
    name: z.string().trim().min(1).max(100),
    role: z.enum(ROLES),
    /** Without a password the user gets a one-time setup link instead. */
    password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH).optional(),
  })
  .strict();
export type AddUserInput = z.input<typeof AddUserInput>;

export const UpdateUserInput = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    role: z.enum(ROLES).optional(),
  })
  .strict();
export type UpdateUserInput = z.input<typeof UpdateUserInput>;

export const ChangePasswordInput = z
  .object({
    current_password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
    new_password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH),
  })
  .strict();
export type ChangePasswordInput = z.input<typeof ChangePasswordInput>;

const SetPasswordInput = z.object({ password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH) }).strict();

function requireOwnerFor(ctx: UserAdminContext, touchesOwner: boolean): void {
  if (touchesOwner && ctx.actorRole !== undefined && ctx.actorRole !== 'owner')
    throw forbidden('Only an owner can grant the owner role or change or remove an owner.');
}

/**
 * Every change of a role and every removal in an account runs under the account's users lease, one
 * at a time across instances. Inside it the owner count is exact, so "demote or remove only if another
 * owner remains" holds without transactions; and it does not rely on a conditional update being atomic,
 * which FerretDB 1.24 does not guarantee (see src/repositories/locks.ts).
 */
const usersLock = (accountId: string) => `users:${accountId}`;

async function assertAnotherOwnerRemains(deps: Pick<UserAdminDeps, 'users'>, accountId: string): Promise<void> {
  if ((await deps.users.countOwners(accountId)) <= 1) throw conflict(LAST_OWNER);
}

export async function listUsers(deps: Pick<UserAdminDeps, 'users'>, accountId: string, page: PageRequest): Promise<PageResult<UserDoc>> {
  return await deps.users.page(accountId, page);
}

export async function getUser(deps: Pick<UserAdminDeps, 'users'>, accountId: string, id: string): Promise<UserDoc> {
  const user = await deps.users.findInAccount(accountId, id);
  if (!user) throw notFound('No such user.');
  return user;
}

/** The link a setup token is handed out as (the page is src/dashboard/setup.ts). */
export const setupLinkUrl = (publicUrl: string, token: string) => `${publicUrl}/dashboard/setup?token=${encodeURIComponent(token)}`;

export interface IssuedSetupToken {
  /** Shown once; the link the route builds from it is the only copy. */
  token: string;
  expiresAt: Date;
}

/** A new one-time setup token for the user; earlier ones stop working. Also serves as a password reset. */
export async function issueSetupToken(deps: Pick<UserAdminDeps, 'userSetupTokens'>, user: Pick<UserDoc, '_id' | 'account_id'>): Promise<IssuedSetupToken> {
  const token = `${SETUP_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SETUP_TOKEN_TTL_SECONDS * 1000);
  await deps.userSetupTokens.deleteForUser(user._id);
  await deps.userSetupTokens.insert({ _id: hashToken(token), user_id: user._id, account_id: user.account_id, expires_at: expiresAt, created_at: now });
  return { token, expiresAt };
}

/**
 * Adds a user to the actor's account: with `password`, or without one, in which case a one-time setup
 * token (24 h) is returned for the user to choose a password.
 */
export async function addUser(
  deps: UserAdminDeps,
  ctx: UserAdminContext,
  input: AddUserInput,
  reservedId?: string,
): Promise<{ user: UserDoc; setup: IssuedSetupToken | null }> {
  const parsed = AddUserInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const data = parsed.data;
  requireOwnerFor(ctx, data.role === 'owner');
  // An earlier run of the same request (Idempotency-Key) added the user already: that one is the
  // answer, without a setup link (shown once; an admin can issue a new one).
  const { doc } = await createOnce(
    reservedId,
    async (existing) => {
      const user = await deps.users.findInAccount(ctx.accountId, existing);
      return user ? { user, setup: null } : null;
    },
    async () => {
      const user = await insertUser(deps, { ...data, account_id: ctx.accountId }, data.password ? await hashPassword(data.password) : null, reservedId);
      const setup = data.password ? null : await issueSetupToken(deps, user);
      await recordEvent(deps, {
        accountId: ctx.accountId,
        type: 'user.created',
        actor: ctx.actor,
        data: { user_id: user._id, email: user.email, role: user.role, setup_link: setup !== null },
        at: user.created_at,
      });
      return { user, setup };
    },
  );
  return doc;
}

const isSetupTokenShape = (token: unknown): token is string =>
  typeof token === 'string' && token.startsWith(SETUP_TOKEN_PREFIX) && token.length <= 200;

/**
 * The user a setup token is for and when it expires, while the token is unused and unexpired (and the
 * user still exists); null for anything else, malformed input included. Reads only: the token stays
 * usable.
 */
export async function findSetupTokenUser(
  deps: Pick<UserAdminDeps, 'users' | 'userSetupTokens'>,
  token: unknown,
): Promise<{ user: UserDoc; expiresAt: Date } | null> {
  if (!isSetupTokenShape(token)) return null;
  const found = await deps.userSetupTokens.findValid(hashToken(token));
  const user = found ? await deps.users.findById(found.user_id) : null;
  return found && user ? { user, expiresAt: found.expires_at } : null;
}

/** How long a claim outlives its token: a request that read the token just before expiry cannot claim it again. */
const SETUP_CLAIM_MARGIN_MS = 3600 * 1000;

/** Consumes a setup token and sets the password. Invalid, used or expired → 400 `invalid_request`. */
export async function completeUserSetup(deps: UserAdminDeps, token: string, input: { password: string }): Promise<UserDoc> {
  const parsed = SetPasswordInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const invalid = () => invalidRequest('This setup link is invalid, already used or expired.');
  if (!isSetupTokenShape(token)) throw invalid();
  const hash = hashToken(token);
  // Checked before the slow hash so a bad link costs nothing.
  const found = await deps.userSetupTokens.findValid(hash);
  if (!found) throw invalid();
  const passwordHash = await hashPassword(parsed.data.password);
  // Single use: of concurrent requests with the same token exactly one takes this never-released
  // lease (an insert of a unique id, atomic on every server; findOneAndDelete is not, on FerretDB).
  // The lease outlives the token by a margin, and the token is read again once claimed: a request that
  // read it before expiry (or before the winner deleted it) and claims only after the lease ended
  // finds it expired or gone.
  const claimed = await deps.locks.tryAcquire(`setup-token:${hash}`, Math.max(0, found.expires_at.getTime() - Date.now()) + SETUP_CLAIM_MARGIN_MS);
  if (!claimed || !(await deps.userSetupTokens.findValid(hash))) throw invalid();
  await deps.userSetupTokens.deleteByHash(hash);
  if (!(await deps.users.setPasswordHash(found.user_id, passwordHash))) throw invalid();
  const user = (await deps.users.findById(found.user_id))!;
  await recordEvent(deps, { accountId: user.account_id, type: 'user.password_set', actor: { type: 'user', id: user._id }, data: { user_id: user._id } });
  return user;
}

/**
 * Changes name and/or role. Every write is conditional on the role that was read; demoting an owner
 * additionally needs another owner (409 `conflict` otherwise).
 */
export async function updateUser(deps: UserAdminDeps, ctx: UserAdminContext, id: string, input: UpdateUserInput): Promise<UserDoc> {
  const parsed = UpdateUserInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const data = parsed.data;
  await getUser(deps, ctx.accountId, id);
  const result = await withLock(deps, usersLock(ctx.accountId), async () => {
    const user = await getUser(deps, ctx.accountId, id);
    const changes: { name?: string; role?: Role; updated_at?: Date } = {};
    if (data.name !== undefined && data.name !== user.name) changes.name = data.name;
    if (data.role !== undefined && data.role !== user.role) changes.role = data.role;
    if (!changes.name && !changes.role) return { user, before: user, changes: null };
    requireOwnerFor(ctx, changes.role !== undefined && (user.role === 'owner' || changes.role === 'owner'));
    const demotesOwner = user.role === 'owner' && changes.role !== undefined;
    if (demotesOwner) await assertAnotherOwnerRemains(deps, ctx.accountId);
    changes.updated_at = new Date();
    const updated = await deps.users.updateIfRole(ctx.accountId, user._id, user.role, changes);
    if (!updated) throw conflict('The user was changed by another request at the same time; retry.');
    if (demotesOwner && (await deps.users.countOwners(ctx.accountId)) === 0) {
      // Only reachable if something outside this lease rewrote an owner meanwhile: undo, refuse.
      await deps.users.updateIfRole(ctx.accountId, user._id, changes.role!, { role: 'owner' });
      throw conflict(LAST_OWNER);
    }
    return { user: updated, before: user, changes };
  });
  if (!result.changes) return result.user;
  const { changes, before, user: updated } = result;
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'user.updated',
    actor: ctx.actor,
    data: {
      user_id: updated._id,
      changed: Object.keys(changes).filter((k) => k !== 'updated_at'),
      ...(changes.role ? { role: { from: before.role, to: changes.role } } : {}),
    },
    at: changes.updated_at,
  });
  return updated;
}

/**
 * Removes a user and everything that lets them act: their OAuth grants (listed in `revoked_grants` so
 * their access JWTs are refused, then deleted with their refresh tokens and codes), their
 * authorization-server sessions, remembered consents and setup links. The last owner cannot be removed
 * (409 `conflict`). Grants are found through the consents collection (user_id → grant_id, written at
 * every consent) and, for any the consents no longer point to, by scanning Grant payloads.
 */
export async function deleteUser(
  deps: UserAdminDeps & UserAccessDeps,
  ctx: UserAdminContext,
  id: string,
): Promise<{ user: UserDoc; revokedGrants: number }> {
  await getUser(deps, ctx.accountId, id);
  const deleted = await withLock(deps, usersLock(ctx.accountId), async () => {
    const user = await getUser(deps, ctx.accountId, id);
    requireOwnerFor(ctx, user.role === 'owner');
    if (user.role === 'owner') await assertAnotherOwnerRemains(deps, ctx.accountId);
    const removed = await deps.users.deleteIfRole(ctx.accountId, user._id, user.role);
    if (!removed) throw conflict('The user was changed by another request at the same time; retry.');
    return removed;
  });
  // The user is gone first: from here no login, code exchange or refresh can create anything new.
  const revokedGrants = await revokeUserAccess(deps, deleted._id);
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'user.deleted',
    actor: ctx.actor,
    data: { user_id: deleted._id, email: deleted.email, role: deleted.role, revoked_grants: revokedGrants },
  });
  return { user: deleted, revokedGrants };
}

/**
 * An operator sets a user's password (the admin CLI: a locked-out sole owner's way back in). The user's
 * sign-in sessions end (dashboard and authorization server) and any unused setup link is dropped; the
 * tokens their apps already hold keep working until revoked.
 */
export async function setUserPassword(
  deps: Pick<UserAdminDeps, 'users' | 'events' | 'userSetupTokens'> & Pick<UserAccessDeps, 'sessions' | 'oidcArtifacts' | 'changes'>,
  ctx: ServiceContext,
  id: string,
  input: { password: string },
): Promise<UserDoc> {
  const parsed = SetPasswordInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const user = await getUser(deps, ctx.accountId, id);
  if (!(await deps.users.setPasswordHash(user._id, await hashPassword(parsed.data.password)))) throw notFound('No such user.');
  await deps.sessions.deleteForUser(user._id);
  await deps.oidcArtifacts.deleteSessionsForAccount(user._id);
  await deps.userSetupTokens.deleteForUser(user._id);
  deps.changes.emit('userAccessRevoked', user._id);
  await recordEvent(deps, { accountId: ctx.accountId, type: 'user.password_set', actor: ctx.actor, data: { user_id: user._id } });
  return (await deps.users.findById(user._id)) ?? user;
}

/** What ending a user's access touches besides the users collection. */
export interface UserAccessDeps extends GrantRevocationDeps {
  /** Tells this process's session cache at once that the user's access ended. */
  changes: Changes;
  consents: ConsentRepository;
  userSetupTokens: UserSetupTokenRepository;
  sessions: SessionRepository;
}


/**
 * Revokes every grant, authorization-server session, dashboard session, consent and setup link of a
 * user. Returns the number of grants.
 */
export async function revokeUserAccess(deps: UserAccessDeps, userId: string): Promise<number> {
  // First, so this instance refuses the user's access tokens from the next request on (and every other
  // instance within revocationRefreshSeconds), whatever grants the searches below find.
  await deps.revokedGrants.add(revokedUserKey(userId));
  const grantIds = [...(await deps.consents.grantIdsForUser(userId)), ...(await deps.oidcArtifacts.grantIdsForAccount(userId))];
  const count = await revokeGrants(deps, grantIds);
  await deps.consents.deleteForUser(userId);
  await deps.oidcArtifacts.deleteSessionsForAccount(userId);
  await deps.sessions.deleteForUser(userId);
  await deps.userSetupTokens.deleteForUser(userId);
  deps.changes.emit('userAccessRevoked', userId);
  return count;
}

/**
 * A signed-in user's own password change. A wrong current password is 422 `validation_failed` on
 * `current_password`; so is reusing the current password.
 */
export async function changeOwnPassword(
  deps: Pick<UserAdminDeps, 'users' | 'events'>,
  userId: string,
  input: ChangePasswordInput,
): Promise<void> {
  const parsed = ChangePasswordInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const { current_password, new_password } = parsed.data;
  const user = await deps.users.findById(userId);
  if (!user) throw notFound('No such user.');
  if (!user.password_hash || !(await verifyPassword(user.password_hash, current_password)))
    throw validationFailed([{ field: 'current_password', message: 'is not correct' }]);
  if (current_password === new_password) throw validationFailed([{ field: 'new_password', message: 'must differ from the current password' }]);
  // Conditional on the hash that was verified: a concurrent change wins, this one is refused.
  if (!(await deps.users.replacePasswordHash(user._id, user.password_hash, await hashPassword(new_password))))
    throw conflict('The password was changed by another request at the same time.');
  await recordEvent(deps, { accountId: user.account_id, type: 'user.password_changed', actor: { type: 'user', id: user._id }, data: { user_id: user._id } });
}
