import type { Command } from 'commander';
import { presentUser } from '../../presenters/users.ts';
import { parseInput } from '../../schemas/parse.ts';
import { OperatorCreateUserInput, SetPasswordInput } from '../../schemas/users.ts';
import { flagProblems, hiddenPasswordFlag, idExample, leaf, output, refusePasswordFlag, UsageError, withRuntime, type JsonOption } from '../command.ts';
import { readPassword } from '../io.ts';
import { accountListCommand, deleteCommand, getCommand, idArgument, withRecord } from '../operator.ts';

/** `slipway users …`: the users of an account, through the user service (its owner rules included). */
export function usersCommands(program: Command): void {
  const users = program.command('users').description('users of an account: create, list, show, delete, set a password');
  createCommand(users);

  accountListCommand(users, 'list the users of an account', (operator, rt, page) => rt.services.users.list(operator, page), presentUser, (u) => `${u._id}  ${u.email}  ${u.role}  ${u.name}`);

  getCommand(users, 'show one user', 'user', (user, operator, rt) => rt.services.users.get(operator, user._id), presentUser);

  deleteCommand(users, 'delete a user and end everything that lets them act (grants, sessions); never the last owner', 'user', {
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
