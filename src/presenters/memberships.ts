import type { AccountDoc } from '../repositories/accounts.ts';
import type { UserDoc } from '../repositories/users.ts';
import type { Membership } from '../schemas/accounts.ts';

/** One of a person's memberships; `current`: the one the calling credential acts in. */
export function presentMembership({ user, account }: { user: UserDoc; account: AccountDoc }, currentUserId: string): Membership {
  return { account_id: account._id, name: account.name, role: user.role, user_id: user._id, current: user._id === currentUserId };
}
