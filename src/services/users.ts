import { MongoServerError } from 'mongodb';
import { z } from 'zod';
import { conflict, validationFailed } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import type { AccountRepository } from '../repositories/accounts.ts';
import { ROLES, type UserDoc, type UserRepository } from '../repositories/users.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, hashPassword } from './passwords.ts';

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
  const now = new Date();
  const doc: UserDoc = {
    _id: newId('usr'),
    account_id: accountId,
    email: data.email,
    name: data.name,
    role: data.role,
    password_hash: await hashPassword(data.password),
    created_at: now,
    updated_at: now,
    last_login_at: null,
  };
  try {
    await repos.users.insert(doc);
  } catch (err) {
    if (err instanceof MongoServerError && err.code === 11000) throw conflict('A user with this email already exists.');
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
