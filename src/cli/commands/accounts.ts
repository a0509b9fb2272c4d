import type { Command } from 'commander';
import { presentAccount } from '../../presenters/accounts.ts';
import { idExample, leaf, output, outputList, outputRecord, pageOf, UsageError, withRuntime, type JsonOption, type PageOptions } from '../command.ts';
import { progressLogger } from '../io.ts';

/** `slipway accounts …`: the tenants, the operator's alone (the account service takes no principal). */
export function accountsCommands(program: Command): void {
  const accounts = program.command('accounts').description('accounts (tenants): list, show, delete');

  leaf(accounts, 'list', 'list every account with its numbers of users, clients and projects', { list: true }).action(async (o: PageOptions) => {
    const page = pageOf(o);
    const result = await withRuntime((rt) => rt.services.accounts.list(page));
    outputList(o.json, page, result, presentAccount, (a) => `${a.account._id}  ${a.account.name}  users: ${a.users}  clients: ${a.oauth_clients}  projects: ${a.projects}`);
  });

  leaf(accounts, 'get', 'show one account')
    .argument('<id>', `account id (${idExample('acct')})`)
    .action(async (id: string, o: JsonOption) => {
      const summary = await withRuntime((rt) => rt.services.accounts.get(id));
      outputRecord(o.json, presentAccount(summary));
    });

  leaf(accounts, 'delete', 'delete an account and everything in it: OAuth clients, projects, API keys, users (the audit log is kept)')
    .argument('<id>', `account id (${idExample('acct')})`)
    .option('--yes', 'confirm: this cannot be undone')
    .action(async (id: string, o: JsonOption & { yes?: boolean }) => {
      if (!o.yes) throw new UsageError(`deleting ${id} removes everything in it and cannot be undone: add --yes`);
      const { progress } = progressLogger();
      const result = await withRuntime((rt) => rt.services.accounts.delete(id, progress));
      const d = result.deleted;
      output(
        o.json,
        { deleted: { id: result.account._id, name: result.account.name }, ...d },
        `deleted account ${result.account._id} (${result.account.name}): ${d.users} user(s), ${d.oauth_clients} client(s), ${d.projects} project(s); ${d.revoked_grants} grant(s) revoked`,
      );
    });
}
