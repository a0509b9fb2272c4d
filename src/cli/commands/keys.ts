import type { Command } from 'commander';
import { loadConfig } from '../../config/index.ts';
import { loadOrCreateKeys, retireSigningKey, rotateCookieKeys, rotateDataKey, rotateSigningKey } from '../../keys/keystore.ts';
import { presentApiKey, presentIssuedApiKey } from '../../presenters/apiKeys.ts';
import { CreateApiKeyBody } from '../../schemas/apiKeys.ts';
import { flagProblems, idExample, leaf, output, outputList, pageOf, UsageError, type JsonOption, type PageOptions } from '../command.ts';
import { notice } from '../io.ts';
import { getCommand, recordCommand, withRecord } from '../operator.ts';

/**
 * `slipway keys …`: two kinds of keys under one word. Project API keys (create, list, get, revoke,
 * delete) go through the API key service; the server's own key material in keys/ (material, rotate,
 * retire, rotate-cookies, rotate-data) is read and written by the keystore, without the database.
 */
export function keysCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description("project API keys (create, list --project, get, revoke, delete) and the server's own key material in keys/ (material, rotate, retire, rotate-cookies, rotate-data)");
  apiKeyCommands(keys);
  keyMaterialCommands(keys);
}

const PROJECT_OPTION = ['--project <id>', `the project (${idExample('proj')})`] as const;

function apiKeyCommands(keys: Command): void {
  leaf(keys, 'create', 'create a project API key; the key is printed once and never again')
    .option(...PROJECT_OPTION)
    .option('--name <name>', 'what the key is for')
    .option('--scopes <scopes>', 'read, write and/or admin, comma-separated')
    .option('--expires-at <iso>', 'expiry (ISO 8601); default never')
    .action(async (o: JsonOption & { project?: string; name?: string; scopes?: string; expiresAt?: string }) => {
      const { project, input } = createInput(o);
      const issued = await withRecord('project', project, (found, operator, rt) => rt.services.apiKeys.create(operator, found._id, input));
      output(
        o.json,
        presentIssuedApiKey(issued),
        `created API key ${issued.apiKey._id} (${issued.apiKey.name}) for project ${issued.apiKey.project_id}, scopes: ${issued.apiKey.scopes.join(' ')}` +
          `\nkey: ${issued.key}\nStore it now: it is not shown again.`,
      );
    });

  leaf(keys, 'list', "list a project's API keys (never their secrets)", { list: true })
    .option(...PROJECT_OPTION)
    .addHelpText('after', '\nWithout --project, `keys list` still shows the key material in keys/ as it used to,\nwith a notice on stderr: that form is deprecated, use `slipway keys material`.')
    .action(async (o: PageOptions & { project?: string }) => {
      if (!o.project) {
        notice('`keys list` without --project is deprecated: use `keys material` for the key material in keys/');
        return await showKeyMaterial(o);
      }
      const page = pageOf(o);
      const result = await withRecord('project', o.project, (project, operator, rt) => rt.services.apiKeys.list(operator, project._id, {}, page));
      outputList(o.json, page, result, presentApiKey, (k) => {
        const shown = presentApiKey(k);
        return `${shown.id}  ${shown.name}  ${shown.prefix}…${shown.last_four}  ${shown.scopes.join(',')}  ${shown.status}`;
      });
    });

  getCommand(keys, 'show one API key (never its secret)', 'apiKey', (key, operator, rt) => rt.services.apiKeys.get(operator, key.project_id, key._id), presentApiKey);

  for (const [name, description] of [
    ['revoke', 'revoke an API key: it stops working at once and stays listed as revoked'],
    ['delete', 'the same as revoke (as DELETE on /v1): the key stays listed as revoked'],
  ] as const) {
    recordCommand(
      keys,
      name,
      description,
      'apiKey',
      (key, operator, rt) => rt.services.apiKeys.revoke(operator, key.project_id, key._id),
      (key, json) => output(json, presentApiKey(key), `revoked API key ${key._id} (${key.name})`),
    );
  }
}

/** The flags of `keys create`, every problem at once (missing flags included), before the database is opened. */
function createInput(o: { project?: string; name?: string; scopes?: string; expiresAt?: string }) {
  const input: Record<string, unknown> = {
    name: o.name,
    scopes: typeof o.scopes === 'string' ? o.scopes.split(/[\s,]+/).filter(Boolean) : undefined,
    ...(o.expiresAt ? { expires_at: o.expiresAt } : {}),
  };
  const checked = CreateApiKeyBody.safeParse(input);
  if (checked.success && o.project) return { project: o.project, input: checked.data };
  const problems = [o.project ? '' : '  - --project: required', checked.success ? '' : flagProblems(input, checked.error.issues, { expires_at: 'expires-at' })];
  throw new UsageError(`invalid arguments:\n${problems.filter(Boolean).join('\n')}`);
}

/** The signing, cookie and data keys in keys/: ids and which is current, never the keys themselves. */
async function showKeyMaterial(o: JsonOption): Promise<void> {
  const material = await loadOrCreateKeys(loadConfig().keysDir);
  const value = {
    signing: material.signing.keys.map((k, i) => ({ kid: k.kid, alg: k.alg, current: i === 0 })),
    cookies: material.cookies.length,
    data: { current: material.data.current, ids: Object.keys(material.data.keys) },
  };
  output(o.json, value, JSON.stringify(value, null, 2));
}

function keyMaterialCommands(keys: Command): void {
  leaf(keys, 'material', 'list the signing, cookie and data keys in keys/ (their ids and which is current, never the keys)').action(showKeyMaterial);

  leaf(keys, 'rotate', 'add a new signing key in front; restart each instance to sign with it (old keys keep verifying)').action(async (o: JsonOption) => {
    const result = await rotateSigningKey(loadConfig().keysDir);
    output(o.json, result, `new signing key ${result.kid}; restart each instance to sign with it (old keys keep verifying)`);
  });

  leaf(keys, 'retire', 'remove an old signing key (never the current one)')
    .option('--kid <kid>', 'the key id to remove')
    .action(async (o: JsonOption & { kid?: string }) => {
      if (!o.kid) throw new UsageError('missing --kid');
      const result = await retireSigningKey(loadConfig().keysDir, o.kid);
      output(o.json, result, `retired ${o.kid}; remaining: ${result.kids.join(', ')}`);
    });

  leaf(keys, 'rotate-cookies', 'add a new cookie signing key in front (the previous ones still verify)').action(async (o: JsonOption) => {
    const result = await rotateCookieKeys(loadConfig().keysDir);
    output(o.json, result, `new cookie key in front (${result.count} kept)`);
  });

  leaf(keys, 'rotate-data', 'add a new current data key for secret configuration values (then `configs reencrypt`)').action(async (o: JsonOption) => {
    const result = await rotateDataKey(loadConfig().keysDir);
    output(o.json, result, `new data key ${result.current}`);
  });
}
