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
    status: doc.status,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
    last_login_at: doc.last_login_at ? doc.last_login_at.toISOString() : null,
  };
}

/** The link a setup token is handed out as (the page is src/dashboard/setup.ts). */
export const setupLinkUrl = (publicUrl: string, token: string) => `${publicUrl}/dashboard/setup?token=${encodeURIComponent(token)}`;

/** The link an invitation is handed out as (the page is src/dashboard/invitation.ts). */
export const invitationLinkUrl = (publicUrl: string, token: string) => `${publicUrl}/dashboard/invitation?token=${encodeURIComponent(token)}`;

/** A user just added, with their one-time invitation link (none in a replay). */
export function presentCreatedUser(doc: UserDoc, invitation: { token: string; expiresAt: Date } | null, publicUrl: string): CreatedUser {
  const url = invitation ? invitationLinkUrl(publicUrl, invitation.token) : null;
  const expires = invitation ? invitation.expiresAt.toISOString() : null;
  return { ...presentUser(doc), invitation_url: url, invitation_expires_at: expires, setup_url: url, setup_expires_at: expires };
}
