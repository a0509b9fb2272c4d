import type { Command } from 'commander';
import type { Config } from '../config/index.ts';
import type { Container } from '../container.ts';
import { systemPrincipal, type Principal } from '../domain/principal.ts';
import { notFound, type Missing } from '../errors.ts';
import type { IdPrefix } from '../lib/ids.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { ACCOUNT_OPTION, idExample, leaf, output, outputList, outputRecord, pageOf, UsageError, withRuntime, type JsonOption, type PageOptions } from './command.ts';

/**
 * The operator acting in an account: the CLI names a record by its id alone, so the account comes from
 * the record (`withRecord`, `recordCommand`) or from --account, or is the only one there is
 * (`withAccount`). Every command that acts inside an account goes through one of these; the service
 * then applies its rules to `systemPrincipal(account)` as to any other principal.
 */

interface Lookup {
  /** What it is called, the command-line argument that names it, what that is and its id prefix (for the help). */
  noun: string;
  argument: string;
  what: string;
  prefix: IdPrefix;
  /** Found across every account (the operator's view), or null. */
  find(rt: Container, id: string): Promise<{ account_id: string } | null>;
  /** The 404 when there is none. */
  missing: Missing;
}

const LOOKUPS = {
  user: { noun: 'user', argument: '<id>', what: 'user id', prefix: 'usr', find: (rt: Container, id: string) => rt.repos.users.findById(id), missing: 'user' },
  client: { noun: 'client', argument: '<client_id>', what: 'client id', prefix: 'cli', find: (rt: Container, id: string) => rt.repos.oauthClients.findById(id), missing: 'oauth_client' },
  apiKey: { noun: 'API key', argument: '<id>', what: 'API key id', prefix: 'key', find: (rt: Container, id: string) => rt.repos.apiKeys.findById(id), missing: 'api_key' },
  project: { noun: 'project', argument: '<id>', what: 'project id', prefix: 'proj', find: (rt: Container, id: string) => rt.repos.projects.findById(id), missing: 'project' },
} satisfies Record<string, Lookup>;

export type RecordKind = keyof typeof LOOKUPS;
export type RecordOf<K extends RecordKind> = NonNullable<Awaited<ReturnType<(typeof LOOKUPS)[K]['find']>>>;
type Act<K extends RecordKind, T> = (record: RecordOf<K>, operator: Principal, rt: Container) => Promise<T>;

/** Opens the runtime, finds the `kind` record `id` (404 `not_found` if none), and runs `fn` as the operator in its account. */
export async function withRecord<K extends RecordKind, T>(kind: K, id: string, fn: Act<K, T>): Promise<T> {
  const lookup = LOOKUPS[kind] as Omit<Lookup, 'find'> & { find(rt: Container, id: string): Promise<RecordOf<K> | null> };
  return await withRuntime(async (rt) => {
    const record = await lookup.find(rt, id);
    if (!record) throw notFound(lookup.missing);
    return await fn(record, systemPrincipal(record.account_id), rt);
  });
}

/** The argument naming a `kind` record, for commander: `['<id>', 'user id (usr_…)']`. */
export function idArgument(kind: RecordKind): [string, string] {
  const { argument, what, prefix } = LOOKUPS[kind];
  return [argument, `${what} (${idExample(prefix)})`];
}

/**
 * A command on one record named by its id (`users get usr_…`): `act` runs as the operator in the
 * record's account (`withRecord`), `print` shows what it returned.
 */
export function recordCommand<K extends RecordKind, T>(parent: Command, name: string, description: string, kind: K, act: Act<K, T>, print: (result: T, json: boolean | undefined) => void): Command {
  return leaf(parent, name, description)
    .argument(...idArgument(kind))
    .action(async (id: string, o: JsonOption) => print(await withRecord(kind, id, act), o.json));
}

/** `get ID`: one record as the service shows it to the operator, presented as JSON either way. */
export function getCommand<K extends RecordKind, T>(parent: Command, description: string, kind: K, get: Act<K, T>, present: (result: T) => unknown): Command {
  return recordCommand(parent, 'get', description, kind, get, (result, json) => outputRecord(json, present(result)));
}

/**
 * `delete ID` of a record whose deletion revokes grants (a user, an OAuth client): `remove` deletes it
 * through its service, `show` gives the deleted record as presented and as named in the text.
 */
export function deleteCommand<K extends RecordKind, T extends { revokedGrants: number }>(
  parent: Command,
  description: string,
  kind: K,
  { remove, show }: { remove: Act<K, T>; show: (result: T) => [presented: Record<string, unknown>, label: string] },
): Command {
  return recordCommand(parent, 'delete', description, kind, remove, (result, json) => {
    const [presented, label] = show(result);
    output(json, { deleted: presented, revoked_grants: result.revokedGrants }, `deleted ${LOOKUPS[kind].noun} ${label}; ${result.revokedGrants} grant(s) revoked`);
  });
}

/** `list` of the records of an account (--account, or the only one), a page at a time (`users list`). */
export function accountListCommand<T>(
  parent: Command,
  description: string,
  list: (operator: Principal, rt: Container, page: PageRequest) => Promise<PageResult<T>>,
  present: (item: T) => Record<string, unknown>,
  line: (item: T) => string,
): Command {
  return leaf(parent, 'list', description, { list: true })
    .option(...ACCOUNT_OPTION)
    .action(async (o: PageOptions & { account?: string }) => {
      const page = pageOf(o);
      outputList(o.json, page, await withAccount(o.account, (operator, rt) => list(operator, rt, page)), present, line);
    });
}

/** Opens the runtime and runs `fn` as the operator in `account` (--account), or in the only account there is. */
export async function withAccount<T>(account: string | undefined, fn: (operator: Principal, rt: Container, config: Config) => Promise<T>): Promise<T> {
  return await withRuntime(async (rt, config) => await fn(systemPrincipal(account || (await onlyAccount(rt))), rt, config));
}

async function onlyAccount(rt: Container): Promise<string> {
  const { items, total } = await rt.services.accounts.list({ page: 1, per_page: 1 });
  if (total === 1) return items[0]!.account._id;
  throw new UsageError(total ? 'several accounts exist: pass --account ACCT (see `slipway accounts list`)' : 'no account exists yet: create a user first');
}
