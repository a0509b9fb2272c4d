import type { Command } from 'commander';
import { presentCreatedUser, presentUser } from '../../presenters/users.ts';
import { parseInput } from '../../schemas/parse.ts';
import { CreateUserBody, OperatorCreateUserInput, SetPasswordInput } from '../../schemas/users.ts';
import { ACCOUNT_OPTION, flagProblems, hiddenPasswordFlag, idExample, leaf, output, refusePasswordFlag, UsageError, withRuntime, type JsonOption } from '../command.ts';
import { readPassword } from '../io.ts';
import { accountListCommand, deleteCommand, getCommand, idArgument, withAccount, withRecord } from '../operator.ts';

/** `slipway users …`: the users of an account, through the user service (its owner rules included). */
export function usersCommands(program: Command): void {
  const users = program.command('users').description('users of an account: create, invite, list, show, delete, set a password');
  createCommand(users);
  inviteCommand(users);

  accountListCommand(users, 'list the users of an account', (operator, rt, page) => rt.services.users.list(operator, page), presentUser, (u) => `${u._id}  ${u.email}  ${u.role}  ${u.status}  ${u.name}`);

  getCommand(users, 'show one user', 'user', (user, operator, rt) => rt.services.users.get(operator, user._id), presentUser);

  deleteCommand(users, 'delete a user and end everything that lets them act (grants, sessions); never the last owner; an invited user: revokes the invitation', 'user', {
    remove: (user, operator, rt) => rt.services.users.delete(operator, user._id),
    show: ({ user }) => [presentUser(user), `${user._id} (${user.email})`],
  });

  leaf(users, 'set-password', "set a user's password (read from a prompt or stdin, never from the command line); ends their sessions and their apps' tokens")
    .argument(...idArgument('user'))
    .addOption(hiddenPasswordFlag())
    .addHelpText(
      'after',
      `\nExample (a locked-out owner):\n  slipway users list --account ${idExample('acct')}\n  slipway users set-password ${idExample('usr')}          # prompts twice, without echo\n` +
        `  printf '%s\\n' "$PASSWORD" | slipway users set-password ${idExample('usr')}`,
    )
    .action(async (id: string, o: JsonOption & { password?: string }) => {
      refusePasswordFlag(o.password);
      const input = parseInput(SetPasswordInput, { password: await readPassword('New password') });
      const user = await withRecord('user', id, (found, operator, rt) => rt.services.users.setPassword(operator, found._id, input));
      output(o.json, presentUser(user), `password set for ${user._id} (${user.email}); their sessions have ended`);
    });
}

function createCommand(users: Command): void {
  leaf(users, 'create', 'create a user (and a new account unless --account); the password is read from a prompt or stdin')
    .option('--email <email>', 'email address (the login)')
    .option('--name <name>', 'display name')
    .option('--role <role>', 'viewer, developer, admin or owner')
    .option('--account <id>', `an existing account (${idExample('acct')}; default: a new one)`)
    .addOption(hiddenPasswordFlag())
    .addHelpText('after', `\nExample:\n  printf '%s\\n' "$PASSWORD" | slipway users create --email you@example.com --name You --role owner`)
    .action(async (o: JsonOption & { email?: string; name?: string; role?: string; account?: string; password?: string }) => {
      refusePasswordFlag(o.password);
      const password = await readPassword();
      const input = { email: o.email as string, password, name: o.name as string, role: o.role as 'owner', ...(o.account ? { account_id: o.account } : {}) };
      // Every problem at once (missing flags included), before touching the database.
      const checked = OperatorCreateUserInput.safeParse(input);
      if (!checked.success) throw new UsageError(`invalid arguments:\n${flagProblems(input, checked.error.issues, { account_id: 'account', password: 'password (stdin)' })}`);
      // No account to look up: the operator's own creation (a new account, or the one named).
      const user = await withRuntime((rt) => rt.services.users.createByOperator(checked.data));
      output(o.json, presentUser(user), `created user ${user._id} (${user.email}, ${user.role}) in account ${user.account_id}`);
    });
}

/**
 * `slipway users invite`: what an admin's POST /v1/users does, for the operator — an invited member of
 * the account and the one-time link they accept it with (printed once; Slipway sends no e-mail). The
 * person signs in there if the address already signs in anywhere, or chooses a password if new.
 */
function inviteCommand(users: Command): void {
  leaf(users, 'invite', 'invite an e-mail address into an account; prints the one-time invitation link to pass on (valid 7 days)')
    .option('--email <email>', 'email address of the person invited')
    .option('--name <name>', 'display name')
    .option('--role <role>', 'viewer, developer, admin or owner')
    .option(...ACCOUNT_OPTION)
    .addHelpText(
      'after',
      `\nExample:\n  slipway users invite --account ${idExample('acct')} --email dev@example.com --name Dev --role developer\n` +
        `  slipway users list --account ${idExample('acct')}      # status: invited until they accept\n  slipway users delete ${idExample('usr')}              # revokes an invitation not yet accepted`,
    )
    .action(async (o: JsonOption & { email?: string; name?: string; role?: string; account?: string }) => {
      const input = { email: o.email, name: o.name, role: o.role };
      const checked = CreateUserBody.safeParse(input);
      if (!checked.success) throw new UsageError(`invalid arguments:\n${flagProblems(input, checked.error.issues)}`);
      const created = await withAccount(o.account, async (operator, rt, config) => {
        const { user, invitation } = await rt.services.users.create(operator, checked.data);
        return presentCreatedUser(user, invitation, config.publicUrl);
      });
      output(
        o.json,
        created,
        `invited ${created.email} into account ${created.account_id} as ${created.role} (user ${created.id}, status ${created.status})\n` +
          `pass this link on; it is shown once and works until ${created.invitation_expires_at}:\n  ${created.invitation_url}`,
      );
    });
}
