import { randomBytes } from 'node:crypto';
import { writeUnique } from '../db/claims.ts';
import { invalidRequest, rateLimited, validationFailed } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { sha256Hex } from '../lib/hash.ts';
import { newId } from '../lib/ids.ts';
import type { IdentityDoc } from '../repositories/identities.ts';
import type { Repositories } from '../repositories/index.ts';
import type { InvitationDoc } from '../repositories/invitations.ts';
import type { UserDoc } from '../repositories/users.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../schemas/users.ts';
import type { EventLog } from './eventLog.ts';
import type { LockService } from './locking.ts';
import type { KnownDevice, LoginService } from './login.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { QuotaService } from './quotas.ts';
import { Service } from './service.ts';

/** docs/product.md §11: an invitation expires after 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
const INVITATION_PREFIX = 'slwin_';
export const INVALID_INVITATION = 'This invitation is invalid, already answered, revoked or expired.';

const isInvitationShape = (token: unknown): token is string => typeof token === 'string' && token.startsWith(INVITATION_PREFIX) && token.length <= 200;

export interface IssuedInvitation {
  /** Shown once; the link built from it is the only copy. */
  token: string;
  expiresAt: Date;
}

/** An invitation that may still be answered, as its page shows it. */
export interface OpenInvitation {
  user: UserDoc;
  accountName: string;
  expiresAt: Date;
}

/** What the person brings to accept: their password (or, new to Slipway, the one they choose now). */
export interface Acceptance {
  password: string;
  /** Where the attempt comes from, for the sign-in budgets (LoginService). */
  source: string;
  device?: KnownDevice | undefined;
}

export interface InvitationServiceDeps extends Pick<Repositories, 'users' | 'identities' | 'invitations' | 'accounts'> {
  locks: LockService;
  /** Invitations expire by it (src/lib/clock.ts). */
  clock: Clock;
  eventLog: EventLog;
  quotas: QuotaService;
  /** A person who already signs in proves it with their password, in the sign-in budgets. */
  login: LoginService;
}

/**
 * Invitations to an account (docs/product.md §11): the link made when an admin adds someone, and its
 * answer. The link is the credential (there is no principal yet): whoever opens it sees the account and
 * the role; accepting needs the invited address's password (or, for an address that has no sign-in
 * yet, the one chosen now); declining needs the link alone. Either answer is given once: of any number
 * of concurrent answers, on any number of instances, the one that claims the invitation
 * (`invitation:<user id>`, src/db/claims.ts through LockService) is the answer.
 */
export class InvitationService extends Service<InvitationServiceDeps> {
  /** A new link for an invited membership (UserService.create). `presetHash`: the inviter's first password, hashed. */
  async issue(user: Pick<UserDoc, '_id' | 'account_id' | 'email'>, presetHash: string | null): Promise<IssuedInvitation> {
    const token = `${INVITATION_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.deps.clock.date();
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    const doc: InvitationDoc = { _id: sha256Hex(token), user_id: user._id, account_id: user.account_id, email: user.email, password_hash: presetHash, expires_at: expiresAt, created_at: now };
    await this.deps.invitations.insert(doc);
    return { token, expiresAt };
  }

  /** The membership went (removed, declined): its link stops working. */
  async revokeFor(userId: string): Promise<void> {
    await this.deps.invitations.deleteForUser(userId);
  }

  /** The invitation behind a link while it may be answered; null for anything else, malformed input included. Reads only. */
  async find(token: unknown): Promise<OpenInvitation | null> {
    const open = await this.#open(token);
    if (!open) return null;
    const account = await this.deps.accounts.findById(open.user.account_id);
    return account ? { user: open.user, accountName: account.name, expiresAt: open.invitation.expires_at } : null;
  }

  /**
   * Accepts: the membership becomes the person's and active. The address's sign-in proves who accepts
   * (a wrong password is 422 `validation_failed` on `password`, counted as a sign-in attempt; too many
   * are 429); an address without one gets its sign-in now, with the inviter's first password if one
   * was given (it must be typed) or else the password chosen here. Invalid, answered, revoked or
   * expired → 400 `invalid_request`.
   */
  async accept(token: string, acceptance: Acceptance): Promise<UserDoc> {
    const { users, identities, clock } = this.deps;
    const open = await this.#open(token);
    if (!open) throw invalidRequest(INVALID_INVITATION);
    const { invitation } = open;
    const person = await identities.findByEmail(invitation.email);
    const newHash = person ? null : await this.#proveNew(invitation, acceptance.password);
    if (person) await this.#proveKnown(invitation.email, acceptance);
    const answered = await this.#claim(token, invitation);
    const now = clock.date();
    let identityId = person?._id;
    if (!identityId) {
      const created: IdentityDoc = { _id: newId('identity'), email: invitation.email, password_hash: newHash, created_at: now, updated_at: now };
      // Taken: the address got a sign-in a moment ago (another invitation accepted); the person answers again, signing in.
      if (!(await writeUnique(() => identities.insert(created).then(() => true), () => false))) throw invalidRequest(INVALID_INVITATION);
      identityId = created._id;
    }
    const accepted = await users.activate(answered.user._id, identityId, now);
    if (!accepted) throw invalidRequest(INVALID_INVITATION);
    await this.deps.invitations.deleteForUser(accepted._id);
    await this.deps.eventLog.record('user.invitation_accepted', { type: 'user', id: accepted._id }, accepted, { user_id: accepted._id, role: accepted.role }, now);
    return accepted;
  }

  /** Declines: the invited membership is removed (its quota slot given back). Invalid, answered, revoked or expired → 400 `invalid_request`. */
  async decline(token: string): Promise<UserDoc> {
    const open = await this.#open(token);
    if (!open) throw invalidRequest(INVALID_INVITATION);
    const { user } = await this.#claim(token, open.invitation);
    const removed = await this.deps.users.deleteInvited(user._id);
    if (!removed) throw invalidRequest(INVALID_INVITATION);
    await this.deps.invitations.deleteForUser(removed._id);
    await this.deps.quotas.release('users', removed._id);
    await this.deps.eventLog.record('user.invitation_declined', { type: 'user', id: removed._id }, removed, { user_id: removed._id }, this.deps.clock.date());
    return removed;
  }

  async #open(token: unknown): Promise<{ invitation: InvitationDoc; user: UserDoc } | null> {
    if (!isInvitationShape(token)) return null;
    const invitation = await this.deps.invitations.findValid(sha256Hex(token), this.deps.clock.date());
    const user = invitation ? await this.deps.users.findById(invitation.user_id) : null;
    return invitation && user?.status === 'invited' && user.account_id === invitation.account_id ? { invitation, user } : null;
  }

  /**
   * The one answer: of concurrent answers exactly one claims the invitation (a lease never given back,
   * outliving the link), and reads it again, still open, before acting.
   */
  async #claim(token: string, invitation: InvitationDoc): Promise<{ invitation: InvitationDoc; user: UserDoc }> {
    const claimed = await this.deps.locks.claimUntil(`invitation:${invitation.user_id}`, invitation.expires_at, this.deps.clock.now());
    const open = claimed ? await this.#open(token) : null;
    if (!open) throw invalidRequest(INVALID_INVITATION);
    return open;
  }

  async #proveKnown(email: string, acceptance: Acceptance): Promise<void> {
    const checked = await this.deps.login.checkPerson({ email, ...acceptance });
    if (checked.outcome === 'throttled') throw rateLimited(checked.retryAfterSeconds, 'Sign-in attempts');
    if (checked.outcome === 'refused') throw validationFailed([{ field: 'password', message: 'is not correct' }]);
  }

  /** The hash of the new person's password: the inviter's, typed again, or the one chosen now. */
  async #proveNew(invitation: InvitationDoc, password: string): Promise<string> {
    if (invitation.password_hash) {
      if (!(await verifyPassword(invitation.password_hash, password))) throw validationFailed([{ field: 'password', message: 'is not correct' }]);
      return invitation.password_hash;
    }
    if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH)
      throw validationFailed([{ field: 'password', message: `must be ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters` }]);
    return await hashPassword(password);
  }
}
