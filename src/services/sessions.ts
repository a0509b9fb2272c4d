import { randomBytes } from 'node:crypto';
import { capByRole, expandScopes, type Principal } from '../domain/principal.ts';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, type SessionDoc } from '../repositories/sessions.ts';
import type { Repositories } from '../repositories/index.ts';
import type { Clock } from '../lib/clock.ts';
import { sha256Hex } from '../lib/hash.ts';
import { RecordCache } from '../lib/recordCache.ts';
import { Service } from './service.ts';
export { SESSION_ABSOLUTE_MS, type SessionDoc } from '../repositories/sessions.ts';

export const SESSION_PREFIX = 'slws_';
export const SESSION_COOKIE = 'slipway_session';
/** How long a validated session is trusted from memory before it is read again (revocation bound). */
const CACHE_MS = 30_000;

const SESSION_PATTERN = /^slws_[A-Za-z0-9_-]{43}$/;

export const hashSessionToken = sha256Hex;
export const looksLikeSessionToken = (token: string) => SESSION_PATTERN.test(token);

export type SessionServiceDeps = Pick<Repositories, 'sessions' | 'users'> & { clock: Clock };

/** A session that checked out, and who it acts as. */
interface Validated {
  session: SessionDoc;
  principal: Principal;
}

/**
 * Dashboard session tokens: opaque `slws_` + 256 random bits, stored only as SHA-256, idle timeout
 * 12 h, absolute 7 days. Validated sessions are cached for 30 s, so a logout or a removed user on
 * another instance is refused within that bound; on this instance, logout takes effect at once.
 */
export class SessionService extends Service<SessionServiceDeps> {
  readonly #cache = new RecordCache<Validated>((hash) => this.#load(hash), { ttlMs: CACHE_MS, now: () => this.deps.clock.now() });

  async create(userId: string, accountId: string): Promise<{ token: string; session: SessionDoc }> {
    const token = `${SESSION_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.deps.clock.date();
    const session: SessionDoc = {
      _id: hashSessionToken(token),
      user_id: userId,
      account_id: accountId,
      csrf_token: randomBytes(24).toString('base64url'),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
    };
    await this.deps.sessions.insert(session);
    return { token, session };
  }

  /** The session and the principal it acts as, or null when unknown, expired, idle or its user is gone. */
  async authenticate(token: string): Promise<Validated | null> {
    if (!looksLikeSessionToken(token)) return null;
    const hash = hashSessionToken(token);
    const found = await this.#cache.get(hash);
    // Lifetimes are checked on every use, cached or not.
    if (found && this.#alive(found.session, this.deps.clock.now())) return found;
    if (found) this.#cache.forget(hash);
    return null;
  }

  async #load(hash: string): Promise<Validated | null> {
    const session = await this.deps.sessions.findByHash(hash);
    const now = this.deps.clock.now();
    if (!session || !this.#alive(session, now)) return null;
    const user = await this.deps.users.findById(session.user_id);
    if (!user || user.account_id !== session.account_id || user.status !== 'active') return null;
    await this.deps.sessions.touch(hash, new Date(now));
    session.last_seen_at = new Date(Math.max(session.last_seen_at.getTime(), now - 60_000));
    const principal: Principal = {
      kind: 'user',
      id: user._id,
      accountId: user.account_id,
      role: user.role,
      scopes: capByRole(expandScopes(['admin']), user.role),
      credential: 'session',
      credentialId: hash.slice(0, 16),
    };
    return { session, principal };
  }

  #alive(session: SessionDoc, now: number): boolean {
    return session.expires_at.getTime() > now && session.last_seen_at.getTime() + SESSION_IDLE_MS > now;
  }

  async revoke(token: string): Promise<void> {
    const hash = hashSessionToken(token);
    this.#cache.forget(hash);
    await this.deps.sessions.delete(hash);
  }

  /** Ends every session of a user (removal, password change). */
  async revokeForUser(userId: string): Promise<number> {
    this.forgetUser(userId);
    return await this.deps.sessions.deleteForUser(userId);
  }

  /** Drops cached sessions of a user (after a role change), so the next request reads the new role. */
  forgetUser(userId: string): void {
    this.#cache.forgetWhere((found) => found.session.user_id === userId);
  }
}
