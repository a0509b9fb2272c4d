import type { Command } from 'commander';
import { presentClient } from '../../presenters/oauthClients.ts';
import { OperatorClientInput } from '../../schemas/oauthClients.ts';
import { parseInput } from '../../schemas/parse.ts';
import { ACCOUNT_OPTION, collect, leaf, output, UsageError, type JsonOption } from '../command.ts';
import { accountListCommand, deleteCommand, getCommand, recordCommand, withAccount } from '../operator.ts';

/** `slipway clients …`: OAuth clients, through the OAuth client service; a secret is printed once. */
export function clientsCommands(program: Command): void {
  const clients = program.command('clients').description('OAuth clients: create, list, show, delete, rotate a secret');
  createCommand(clients);

  accountListCommand(
    clients,
    'list the OAuth clients of an account',
    (operator, rt, page) => rt.services.oauthClients.list(operator, page),
    presentClient,
    (c) => `${c._id}  ${c.client_name}  ${c.token_endpoint_auth_method === 'none' ? 'public' : 'confidential'}  ${c.grant_types.join(',')}`,
  );

  getCommand(clients, 'show one OAuth client', 'client', (client, operator, rt) => rt.services.oauthClients.get(operator, client._id), presentClient);

  deleteCommand(clients, 'delete an OAuth client and revoke every grant made to it', 'client', {
    remove: (client, operator, rt) => rt.services.oauthClients.delete(operator, client._id),
    show: ({ client }) => [presentClient(client), `${client._id} (${client.client_name})`],
  });

  recordCommand(
    clients,
    'rotate-secret',
    "replace a confidential client's secret (printed once); the old one stops working at once",
    'client',
    (client, operator, rt) => rt.services.oauthClients.rotateSecret(operator, client._id),
    (result, json) =>
      output(
        json,
        { ...presentClient(result.client), client_secret: result.clientSecret },
        `new secret for ${result.client._id} (${result.client.client_name})\nclient_secret: ${result.clientSecret}\nStore it now: it is not shown again.`,
      ),
  );
}

interface CreateOptions extends JsonOption {
  name?: string;
  redirectUri?: string[];
  public?: boolean;
  confidential?: boolean;
  firstParty?: boolean;
  requireDpop?: boolean;
  requirePar?: boolean;
  grant?: string[];
  scope?: string;
  account?: string;
}

function createCommand(clients: Command): void {
  leaf(clients, 'create', 'register an OAuth client; a confidential client gets a secret, printed once')
    .option('--name <name>', 'client name shown on the consent page')
    .option('--redirect-uri <uri>', 'a redirect URI (repeat for several)', collect)
    .option('--public', 'a public client (no secret; browser and native apps): the default')
    .option('--confidential', 'a confidential client (client_secret_basic)')
    .option('--first-party', 'skip the consent page')
    .option('--require-dpop', 'token requests must carry a DPoP proof (dpop_bound_access_tokens)')
    .option('--require-par', 'authorization requests must be pushed first (require_pushed_authorization_requests)')
    .option('--grant <type>', 'authorization_code, refresh_token or client_credentials (repeat for several)', collect)
    .option('--scope <scopes>', 'scopes it may request, e.g. "read write"')
    .option(...ACCOUNT_OPTION)
    .action(async (o: CreateOptions) => {
      const input = clientInput(o);
      const result = await withAccount(o.account, (operator, rt) => rt.services.oauthClients.registerAsOperator(operator, input));
      const presented = { ...presentClient(result.client), ...(result.clientSecret ? { client_secret: result.clientSecret } : {}) };
      output(
        o.json,
        presented,
        `created client ${result.client._id} (${result.client.client_name})` +
          (result.clientSecret ? `\nclient_secret: ${result.clientSecret}\nStore it now: it is not shown again.` : ''),
      );
    });
}

/** The flags of `clients create` as the operator's registration input, checked before the database is opened. */
function clientInput(o: CreateOptions): OperatorClientInput {
  if (!o.name) throw new UsageError('missing --name');
  if (o.public && o.confidential) throw new UsageError('--public and --confidential exclude each other');
  return parseInput(OperatorClientInput, {
    client_name: o.name,
    redirect_uris: o.redirectUri ?? [],
    token_endpoint_auth_method: o.confidential ? 'client_secret_basic' : 'none',
    ...(o.grant ? { grant_types: o.grant } : {}),
    ...(o.scope ? { scope: o.scope } : {}),
    first_party: !!o.firstParty,
    dpop_bound_access_tokens: !!o.requireDpop,
    require_pushed_authorization_requests: !!o.requirePar,
  });
}
