import { z } from 'zod';
import { pageOf, PageQuery } from './page.ts';
import { atLeastOneField, documentedPattern, EMAIL_PATTERN, trimmedText } from './rules.ts';
import { ROLES } from '../domain/principal.ts';
import { Timestamp } from './projects.ts';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

export const USER_ID = /^usr_[0-9a-hjkmnp-tv-z]{26}$/;
export const UserId = z
  .string()
  .regex(USER_ID)
  .meta({ description: 'User id.', example: 'usr_01jd8x0a2b4c6d8e0f2g4h6j8k' });

export const UserParams = z.object({ user_id: UserId });
export type UserParams = z.output<typeof UserParams>;

export const Role = z.enum(ROLES).meta({
  description: '`viewer` (read), `developer` (write), `admin` and `owner` (admin). Only an owner may grant `owner` or change or remove an owner.',
  example: 'developer',
});

const Email = z
  .string()
  .regex(EMAIL_PATTERN, 'Invalid email address')
  .trim()
  .toLowerCase()
  .max(254)
  .meta({ ...documentedPattern(EMAIL_PATTERN), description: 'Unique in the account; stored lower-case. At most 254 characters after trimming.', example: 'ada@example.com' });
const Name = trimmedText(100, { controlCharacters: true }).meta({ description: '1–100 characters after trimming.', example: 'Ada Lovelace' });
const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .max(PASSWORD_MAX_LENGTH)
  .meta({ description: `${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters.`, example: 'correct horse battery staple', format: 'password' });

export const CreateUserBody = z
  .object({
    email: Email,
    name: Name,
    role: Role,
    password: Password.optional().meta({
      description:
        'A first password for a person new to Slipway: if the address has no sign-in when the invitation is accepted, this is its password (the person types it on the invitation page). Never applied to an address that already signs in.',
    }),
  })
  .strict()
  .meta({ id: 'CreateUser' });
export type CreateUserBody = z.output<typeof CreateUserBody>;

export const UpdateUserBody = atLeastOneField(z.object({ name: Name.optional(), role: Role.optional() }).strict()).meta({ id: 'UpdateUser', description: 'The last owner cannot be demoted (`conflict`).' });
export type UpdateUserBody = z.output<typeof UpdateUserBody>;

export const ChangePasswordBody = z
  .object({
    current_password: z.string().min(1).max(PASSWORD_MAX_LENGTH).meta({ description: 'The password in use now.', format: 'password', example: 'correct horse battery staple' }),
    new_password: Password.meta({ description: `${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters.`, example: 'battery staple horse correct 2', format: 'password' }),
  })
  .strict()
  .meta({ id: 'ChangePassword' });
export type ChangePasswordBody = z.output<typeof ChangePasswordBody>;

/**
 * A password set without the current one: through a setup link (the dashboard's setup page) or by an
 * operator (`slipway users set-password`). No /v1 route takes it.
 */
export const SetPasswordInput = z.object({ password: Password }).strict();
export type SetPasswordInput = z.output<typeof SetPasswordInput>;

/**
 * A user an operator creates (`slipway users create`, and the seeds of tests and benchmarks): the
 * password is required, and without `account_id` the user comes with a new account of their own.
 */
export const OperatorCreateUserInput = z.object({ email: Email, name: Name, role: Role, password: Password, account_id: z.string().optional() }).strict();
export type OperatorCreateUserInput = z.output<typeof OperatorCreateUserInput>;

export const ListUsersQuery = PageQuery;
export type ListUsersQuery = z.output<typeof ListUsersQuery>;

export const User = z
  .object({
    id: UserId,
    account_id: z.string().meta({ example: 'acct_01jd8x0a2b4c6d8e0f2g4h6j8m' }),
    email: z.string().meta({ example: 'ada@example.com' }),
    name: z.string().meta({ example: 'Ada Lovelace' }),
    role: Role,
    status: z.enum(['invited', 'active']).meta({ description: '`invited`: added, the invitation not yet accepted (no sign-in acts as this user); `active`: a member.', example: 'active' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    last_login_at: Timestamp.nullable(),
  })
  .meta({ id: 'User' });
export type User = z.output<typeof User>;

export const CreatedUser = User.extend({
  invitation_url: z.string().nullable().meta({
    description:
      'The one-time invitation link (7 days), shown in this response only: the person opens it, signs in (or, new to Slipway, chooses a password) and accepts or declines. Slipway sends no e-mail. `null` in an `Idempotency-Key` replay.',
    example: 'https://slipway.example.com/dashboard/invitation?token=slwin_Jb3…',
  }),
  invitation_expires_at: Timestamp.nullable().meta({ description: 'When the invitation expires.' }),
  setup_url: z.string().nullable().meta({
    description: 'Deprecated: the same link as `invitation_url` (a new person chooses their password there).',
    example: 'https://slipway.example.com/dashboard/invitation?token=slwin_Jb3…',
  }),
  setup_expires_at: Timestamp.nullable().meta({ description: 'Deprecated: the same as `invitation_expires_at`.' }),
}).meta({ id: 'CreatedUser' });
export type CreatedUser = z.output<typeof CreatedUser>;

export const UserList = pageOf(User, 'UserList');
