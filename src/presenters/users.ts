import type { UserDoc } from '../repositories/users.ts';
import type { CreatedUser, User } from '../schemas/users.ts';

/** The API object of a stored user: no `_id`, never the password hash, ISO timestamps. */
export function presentUser(doc: UserDoc): User {
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

/** The link a setup token is handed out as (the page is src/dashboard/setup.ts). */
export const setupLinkUrl = (publicUrl: string, token: string) => `${publicUrl}/dashboard/setup?token=${encodeURIComponent(token)}`;

/** A user just added, with their one-time setup link when they were added without a password. */
export function presentCreatedUser(doc: UserDoc, setup: { token: string; expiresAt: Date } | null, publicUrl: string): CreatedUser {
  return { ...presentUser(doc), setup_url: setup ? setupLinkUrl(publicUrl, setup.token) : null, setup_expires_at: setup ? setup.expiresAt.toISOString() : null };
}
