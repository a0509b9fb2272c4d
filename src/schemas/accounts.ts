import { z } from 'zod';
import { pageOf, PageQuery } from './page.ts';
import { Role, UserId } from './users.ts';

export const AccountId = z.string().meta({ description: 'Account id.', example: 'acct_01jd8x0a2b4c6d8e0f2g4h6j8m' });

export const ListMembershipsQuery = PageQuery;
export type ListMembershipsQuery = z.output<typeof ListMembershipsQuery>;

/** One account a person is a member of (docs/product.md §11). */
export const Membership = z
  .object({
    account_id: AccountId,
    name: z.string().meta({ description: 'The account’s name.', example: 'Acme' }),
    role: Role,
    user_id: UserId.meta({ description: 'The person as a user of that account (`/v1/users/{user_id}` there).' }),
    current: z.boolean().meta({ description: 'Whether this credential acts in this account (a credential always acts in exactly one).' }),
  })
  .meta({ id: 'Membership' });
export type Membership = z.output<typeof Membership>;

export const MembershipList = pageOf(Membership, 'MembershipList');
