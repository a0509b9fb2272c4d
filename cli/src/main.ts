/**
 * slip: Slipway on the terminal for people. Every command takes --url and --json; results go to
 * stdout, progress and messages to stderr; exit codes are in errors.ts (EXIT) and the README.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import type { Slipway } from '@slipway/sdk';
import { CliError, EXIT, describeError } from './errors.js';
import { deviceLogin, revoke } from './login.js';
import { ago, printJson, printTable, say } from './output.js';
import { connect, normalizeUrl, resolveUrl, type Connection } from './session.js';
import { chooseStore, findStored, storePreference, writeSettings, type StoredCredentials } from './store.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface Common {
  url?: string;
  json?: boolean;
  project?: string;
}

type Deployment = { id: string; project_id: string; environment: string; branch: string; commit_sha: string | null; status: string; status_message: string | null; url: string | null; created_at: string; kind?: string };
type Configuration = { id: string; environment: string; key: string; value: string | null; secret: boolean; updated_at?: string };
type Page<T> = { data: T[]; pagination?: { page: number; per_page: number; total: number } };

const FINAL = new Set(['succeeded', 'failed', 'canceled', 'superseded', 'rejected']);

/** `--url` and `--json` on every command, `--project` where the command works in a project. */
function common(command: Command, { project = false } = {}): Command {
  command.option('--url <url>', 'the Slipway server (default: SLIPWAY_URL, else the one you signed in to last)');
  if (project) command.option('-p, --project <project>', 'the project, by id (proj_…) or name (default: SLIPWAY_PROJECT)');
  command.option('--json', 'print the result as JSON (for scripts): nothing else goes to stdout');
  return command;
}

function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

async function projectId(client: Slipway, ref: string | undefined): Promise<string> {
  const wanted = ref ?? process.env.SLIPWAY_PROJECT;
  if (!wanted) throw new CliError('Which project? Pass --project (an id or a name) or set SLIPWAY_PROJECT.', EXIT.usage);
  if (/^proj_\w+$/.test(wanted)) return wanted;
  for await (const project of client.projects.listAll({ per_page: 100 })) {
    if (project.name === wanted) return project.id;
  }
  throw new CliError(`No project named "${wanted}" is visible to these credentials.`, EXIT.refused, 'not_found');
}

function positiveNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new CliError(`${name} must be a positive number (got "${value}").`, EXIT.usage);
    return n;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new CliError('Expected the value on standard input (e.g. `printf %s "$VALUE" | slip …`).', EXIT.usage);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

function deploymentLine(d: Deployment): string {
  const commit = d.commit_sha ? `@${d.commit_sha.slice(0, 7)}` : '';
  return `${d.id} ${d.branch}${commit} → ${d.environment}: ${d.status}${d.status_message ? ` (${d.status_message})` : ''}${d.url ? ` ${d.url}` : ''}`;
}

/** Follows a deployment until it ends: status changes on stderr (a live line on a TTY), none with --json. */
async function follow(client: Slipway, project: string, first: Deployment, opts: { json?: boolean; poll: number }): Promise<Deployment> {
  const tty = process.stderr.isTTY && !opts.json;
  const started = Date.now();
  let current = first;
  let shown = '';
  const show = (final: boolean) => {
    if (opts.json) return;
    const line = `${current.id}: ${current.status}${current.status_message ? ` — ${current.status_message}` : ''}`;
    if (tty) {
      process.stderr.write(`\r\x1b[K${line} (${Math.round((Date.now() - started) / 1000)}s)${final ? '\n' : ''}`);
    } else if (line !== shown) {
      say(line);
    }
    shown = line;
  };
  show(false);
  while (!FINAL.has(current.status)) {
    await sleep(opts.poll * 1000);
    current = (await client.deployments.get(project, current.id)) as Deployment;
    show(FINAL.has(current.status));
  }
  return current;
}

function finish(d: Deployment, json: boolean | undefined): void {
  if (json) printJson(d);
  else process.stdout.write(`${deploymentLine(d)}\n`);
  if (d.status !== 'succeeded') process.exitCode = EXIT.deploymentFailed;
}

export function buildProgram(): Command {
  const program = new Command('slip')
    .description('Slipway on the terminal: sign in, deploy, follow deployments, manage configuration.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Credentials: \`slip login\` (device sign-in; tokens bound to a key kept with them, in the OS keychain or a
file only you can read), or SLIPWAY_TOKEN (an API key or access token) and SLIPWAY_URL for scripts.
In CI, a job's OIDC token exchanged for each command, nothing stored: SLIPWAY_OIDC_TOKEN (the token),
SLIPWAY_OIDC_TOKEN_FILE (a file holding it) or SLIPWAY_OIDC=github (asked of GitHub Actions).

Exit codes: 0 ok, 1 error (server, network), 2 usage, 3 not signed in or credentials refused,
4 the API refused (not found, forbidden, conflict, validation), 5 no credential store,
6 deploy --wait: the deployment did not succeed.

Examples:
  $ slip login --url https://slipway.example.com
  $ slip projects
  $ slip deploy --project checkout --env production --branch main --wait
  $ SLIPWAY_TOKEN=slw_… slip deployments list --project checkout --json
`,
    );

  // login
  examples(
    common(program.command('login'))
      .description('Sign in with the device flow: prints a URL and a code to allow in a browser')
      .option('--no-browser', 'do not open a browser, only print the URL and code')
      .option('--account <account>', 'the account to sign in to (acct_…), when you belong to several')
      .option('--scope <scopes>', 'the scopes to ask for', 'read write')
      .addOption(new Option('--store <store>', 'where to keep the credentials: auto (keychain, else a 0600 file), keychain (refuse without one), file (default: SLIPWAY_CREDENTIAL_STORE, else auto)').choices(['auto', 'keychain', 'file']))
      .option('--with-token', 'store a token read from standard input (an API key) instead of signing in'),
    ['slip login --url https://slipway.example.com', 'slip login --no-browser --account acct_123', 'printf %s "$API_KEY" | slip login --with-token --url https://slipway.example.com'],
  ).action(async (opts: Common & { browser: boolean; account?: string; scope: string; store?: string; withToken?: boolean }) => {
    const url = resolveUrl(opts.url);
    // The store first: a refusal comes before any browser dance.
    const { store, fallback } = chooseStore(storePreference(opts.store));
    let credentials: StoredCredentials;
    if (opts.withToken) {
      const token = (await readStdin()).trim();
      if (!token) throw new CliError('No token on standard input.', EXIT.usage);
      const { Slipway: Client } = await import('@slipway/sdk');
      const client = token.startsWith('slw_') ? new Client({ baseUrl: url, apiKey: token }) : new Client({ baseUrl: url, accessToken: token });
      await client.projects.list({ per_page: 1 }); // the token works before it is kept
      credentials = { url, kind: 'token', token, storedAt: new Date().toISOString() };
    } else {
      credentials = await deviceLogin({ url, scope: opts.scope, account: opts.account, browser: opts.browser, say });
    }
    // A sign-in this one replaces is revoked, not left valid on the server.
    const previous = findStored(url);
    store.save(credentials);
    if (previous && previous.store.kind !== store.kind) previous.store.remove(url);
    writeSettings({ url });
    if (previous?.credentials.kind === 'oauth') await revoke(previous.credentials).catch((err: unknown) => say(`The previous sign-in could not be revoked: ${describeError(err).message}`));
    const who = credentials.user ? `${credentials.user.email ?? credentials.user.id}${credentials.account ? ` in ${credentials.account.name ?? credentials.account.id}` : ''}` : 'a token';
    if (opts.json) {
      printJson({ url, kind: credentials.kind, user: credentials.user ?? null, account: credentials.account ?? null, store: store.kind, store_location: store.description, ...(fallback ? { fallback_reason: fallback } : {}) });
    } else {
      say(`Signed in to ${url} as ${who}.`);
      say(`Credentials stored in ${store.description}${fallback ? ` — no OS keychain answered: ${fallback}` : ''}.`);
    }
  });

  // logout
  examples(common(program.command('logout')).description('Revoke the sign-in on the server and forget the stored credentials'), ['slip logout']).action(async (opts: Common) => {
    const url = resolveUrl(opts.url);
    const found = findStored(url);
    if (!found) {
      if (opts.json) printJson({ url, signed_out: false, revoked: false });
      else say(`Not signed in to ${url}: nothing to forget.`);
      return;
    }
    let revoked = false;
    let revokeError: unknown;
    if (found.credentials.kind === 'oauth') {
      try {
        await revoke(found.credentials);
        revoked = true;
      } catch (err) {
        revokeError = err;
      }
    }
    found.store.remove(url);
    if (opts.json) printJson({ url, signed_out: true, revoked, ...(revokeError ? { revoke_error: describeError(revokeError).message } : {}) });
    else if (found.credentials.kind === 'token') say(`Forgot the token stored for ${url} (the token itself still works until it is revoked in Slipway).`);
    else if (revoked) say(`Signed out of ${url}: the sign-in is revoked and the credentials are gone from ${found.store.description}.`);
    if (revokeError) throw new CliError(`Forgot the credentials, but the server did not confirm the revocation: ${describeError(revokeError).message}`, EXIT.error);
  });

  // whoami
  examples(common(program.command('whoami')).description('Show who the credentials act for, on which server, kept where'), ['slip whoami', 'slip whoami --json']).action(async (opts: Common) => {
    const conn = await connect(opts.url);
    const where = conn.source === 'SLIPWAY_TOKEN' ? 'the SLIPWAY_TOKEN environment variable' : conn.source === 'oidc' ? `the CI token from ${conn.oidcFrom}, exchanged for this command` : conn.stored!.store.description;
    let user: { id: string; email: string; name: string; role: string; account_id: string } | undefined;
    try {
      user = await conn.client.users.me();
    } catch (err) {
      // An API key acts for a project, not a person: /v1/users/me refuses it.
      if (describeError(err).exitCode !== EXIT.refused) throw err;
    }
    const projects = user ? undefined : (await conn.client.projects.list({ per_page: 100 })).data.map((p) => ({ id: p.id, name: p.name }));
    if (opts.json) {
      printJson({ url: conn.url, credentials: conn.source === 'SLIPWAY_TOKEN' ? 'env' : conn.source, stored_in: conn.source === 'SLIPWAY_TOKEN' || conn.source === 'oidc' ? null : conn.stored!.store.kind, user: user ?? null, projects: projects ?? null });
      return;
    }
    if (user) process.stdout.write(`${user.email} (${user.name}), ${user.role} of account ${user.account_id}\n`);
    else process.stdout.write(`a project credential (not a person) for ${projects!.map((p) => `${p.name} (${p.id})`).join(', ') || 'no project'}\n`);
    say(`Server: ${conn.url}. Credentials from ${where}.`);
  });

  // accounts
  examples(common(program.command('accounts')).description('List the accounts you are a member of (* marks the one this sign-in acts in)'), ['slip accounts', 'slip login --account acct_123']).action(async (opts: Common) => {
    const conn = await connect(opts.url);
    const page = await conn.client.request<Page<{ account_id: string; name: string; role: string; current: boolean }>>({ method: 'GET', path: '/v1/accounts', query: { per_page: 100 } });
    if (opts.json) return printJson(page.data);
    printTable(['', 'ACCOUNT', 'NAME', 'ROLE'], page.data.map((a) => [a.current ? '*' : ' ', a.account_id, a.name, a.role]), 'No accounts.');
  });

  // projects
  examples(common(program.command('projects')).description('List the projects you can see'), ['slip projects', 'slip projects --json']).action(async (opts: Common) => {
    const conn = await connect(opts.url);
    const projects = [];
    for await (const project of conn.client.projects.listAll({ per_page: 100 })) projects.push(project);
    if (opts.json) return printJson(projects);
    printTable(['ID', 'NAME', 'STATUS', 'TARGET'], projects.map((p) => [p.id, p.name, p.status, p.deploy_target]), 'No projects.');
  });

  // deploy
  examples(
    common(program.command('deploy'), { project: true })
      .description('Create a deployment of a branch (and commit) to an environment')
      .requiredOption('-e, --env <environment>', 'the environment, e.g. production')
      .requiredOption('-b, --branch <branch>', 'the branch')
      .option('-c, --commit <sha>', 'the commit')
      .option('-w, --wait', 'follow the deployment to its end (exit code 6 unless it succeeds)')
      .option('--poll <seconds>', 'with --wait: how often to look', positiveNumber('--poll'), 2),
    ['slip deploy --project checkout --env production --branch main', 'slip deploy -p checkout -e staging -b main -c 3f2a9c1 --wait', 'slip deploy -p checkout -e production -b main --wait --json'],
  ).action(async (opts: Common & { env: string; branch: string; commit?: string; wait?: boolean; poll: number }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    const created = (await conn.client.deployments.create(project, { environment: opts.env, branch: opts.branch, ...(opts.commit ? { commit_sha: opts.commit } : {}) })) as Deployment;
    if (!opts.wait) {
      if (opts.json) return printJson(created);
      process.stdout.write(`${deploymentLine(created)}\n`);
      return;
    }
    finish(await follow(conn.client, project, created, { json: opts.json, poll: opts.poll }), opts.json);
  });

  // deployments
  const deployments = program.command('deployments').description('List, show, cancel and redeploy deployments');
  examples(
    common(deployments.command('list'), { project: true })
      .description('List deployments, newest first')
      .option('-e, --env <environment>', 'only this environment')
      .option('--status <status>', 'only this status')
      .option('-b, --branch <branch>', 'only this branch')
      .option('-n, --limit <n>', 'how many (1–100)', positiveNumber('--limit'), 20),
    ['slip deployments list --project checkout', 'slip deployments list -p checkout -e production --status succeeded --json'],
  ).action(async (opts: Common & { env?: string; status?: string; branch?: string; limit: number }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    const page = (await conn.client.deployments.list(project, { per_page: Math.min(100, Math.floor(opts.limit)), ...(opts.env ? { environment: opts.env } : {}), ...(opts.status ? { status: opts.status as 'queued' } : {}), ...(opts.branch ? { branch: opts.branch } : {}) })) as unknown as Page<Deployment>;
    if (opts.json) return printJson(page.data);
    printTable(['ID', 'ENV', 'BRANCH', 'COMMIT', 'STATUS', 'CREATED'], page.data.map((d) => [d.id, d.environment, d.branch, d.commit_sha?.slice(0, 7), d.status, ago(d.created_at)]), 'No deployments.');
  });
  examples(
    common(deployments.command('get'), { project: true })
      .description('Show one deployment')
      .argument('<deployment>', 'the deployment id (dep_…)')
      .option('-w, --wait', 'follow it to its end (exit code 6 unless it succeeds)')
      .option('--poll <seconds>', 'with --wait: how often to look', positiveNumber('--poll'), 2),
    ['slip deployments get dep_123 --project checkout', 'slip deployments get dep_123 -p checkout --wait'],
  ).action(async (id: string, opts: Common & { wait?: boolean; poll: number }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    const d = (await conn.client.deployments.get(project, id)) as Deployment;
    if (opts.wait) return finish(await follow(conn.client, project, d, { json: opts.json, poll: opts.poll }), opts.json);
    if (opts.json) return printJson(d);
    process.stdout.write(`${deploymentLine(d)}\n`);
  });
  examples(
    common(deployments.command('cancel'), { project: true }).description('Cancel a deployment that has not finished').argument('<deployment>', 'the deployment id (dep_…)').option('-m, --message <text>', 'why (its status_message)'),
    ['slip deployments cancel dep_123 --project checkout -m "wrong branch"'],
  ).action(async (id: string, opts: Common & { message?: string }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    const d = (await conn.client.deployments.update(project, id, { status: 'canceled', ...(opts.message ? { status_message: opts.message } : {}) })) as Deployment;
    if (opts.json) return printJson(d);
    process.stdout.write(`${deploymentLine(d)}\n`);
  });
  examples(
    common(deployments.command('redeploy'), { project: true })
      .description('Deploy the same branch and commit again (to another environment: a promotion)')
      .argument('<deployment>', 'the deployment id (dep_…)')
      .option('-e, --env <environment>', 'the environment to deploy it to (default: its own)'),
    ['slip deployments redeploy dep_123 --project checkout', 'slip deployments redeploy dep_123 -p checkout --env production'],
  ).action(async (id: string, opts: Common & { env?: string }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    const d = await conn.client.request<Deployment>({ method: 'POST', path: `/v1/projects/${encodeURIComponent(project)}/deployments/${encodeURIComponent(id)}/redeploy`, body: opts.env ? { environment: opts.env } : {}, idempotent: true });
    if (opts.json) return printJson(d);
    process.stdout.write(`${deploymentLine(d)}\n`);
  });

  // approve / reject
  for (const decision of ['approve', 'reject'] as const) {
    examples(
      common(program.command(decision), { project: true })
        .description(decision === 'approve' ? 'Approve a deployment waiting for review' : 'Reject a deployment waiting for review (it ends as rejected)')
        .argument('<deployment>', 'the deployment id (dep_…)')
        .option('-m, --comment <text>', 'a comment kept with the review'),
      [`slip ${decision} dep_123 --project checkout${decision === 'reject' ? ' -m "not during the freeze"' : ''}`],
    ).action(async (id: string, opts: Common & { comment?: string }) => {
      const conn = await connect(opts.url, process.env, opts.project);
      const project = await projectId(conn.client, opts.project);
      const review = await conn.client.request<Record<string, unknown>>({ method: 'POST', path: `/v1/projects/${encodeURIComponent(project)}/deployments/${encodeURIComponent(id)}/reviews`, body: { decision, ...(opts.comment ? { comment: opts.comment } : {}) }, idempotent: true });
      if (opts.json) return printJson(review);
      process.stdout.write(`${decision === 'approve' ? 'Approved' : 'Rejected'} ${id}.\n`);
    });
  }

  // rollback
  examples(
    common(program.command('rollback'), { project: true })
      .description('Redeploy what succeeded before the current deployment of an environment (or the one named)')
      .requiredOption('-e, --env <environment>', 'the environment')
      .option('--to <deployment>', 'the deployment to go back to (default: the one before the current)'),
    ['slip rollback --project checkout --env production', 'slip rollback -p checkout -e production --to dep_123'],
  ).action(async (opts: Common & { env: string; to?: string }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    const d = await conn.client.request<Deployment>({ method: 'POST', path: `/v1/projects/${encodeURIComponent(project)}/environments/${encodeURIComponent(opts.env)}/rollback`, body: opts.to ? { deployment_id: opts.to } : {}, idempotent: true });
    if (opts.json) return printJson(d);
    process.stdout.write(`${deploymentLine(d)}\n`);
  });

  // logs
  examples(
    common(program.command('logs'), { project: true })
      .description("Print a deployment's log; --follow keeps printing until the deployment ends")
      .argument('<deployment>', 'the deployment id (dep_…)')
      .option('-f, --follow', 'keep reading until the deployment has finished and its log is complete')
      .option('--after <seq>', 'only lines after this number', (v) => Number.parseInt(v, 10), 0)
      .option('--poll <seconds>', 'with --follow: how often to look', positiveNumber('--poll'), 1),
    ['slip logs dep_123 --project checkout', 'slip logs dep_123 -p checkout --follow', 'slip logs dep_123 -p checkout --json   # one JSON object per line'],
  ).action(async (id: string, opts: Common & { follow?: boolean; after: number; poll: number }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    let after = Number.isFinite(opts.after) ? opts.after : 0;
    for (;;) {
      const page = await conn.client.request<{ data: { seq: number; stream: string; text: string; timestamp: string }[]; next_after: number | null; complete: boolean }>({
        method: 'GET',
        path: `/v1/projects/${encodeURIComponent(project)}/deployments/${encodeURIComponent(id)}/logs`,
        query: { after, limit: 1000 },
      });
      for (const line of page.data) {
        if (opts.json) process.stdout.write(`${JSON.stringify(line)}\n`);
        else (line.stream === 'stderr' ? process.stderr : process.stdout).write(`${line.text}\n`);
      }
      if (page.data.length > 0) after = page.next_after ?? page.data[page.data.length - 1]!.seq;
      if (page.data.length === 1000) continue;
      if (!opts.follow || page.complete) return;
      await sleep(opts.poll * 1000);
    }
  });

  // env
  const env = program.command('env').description("A project's configuration variables, per environment");
  examples(
    common(env.command('list'), { project: true }).description('List the variables (secret values hidden unless --reveal)').option('-e, --env <environment>', 'only this environment').option('--reveal', 'show secret values (admin)'),
    ['slip env list --project checkout', 'slip env list -p checkout -e production --json'],
  ).action(async (opts: Common & { env?: string; reveal?: boolean }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    const items: Configuration[] = [];
    for await (const c of conn.client.configurations.listAll(project, { per_page: 100, ...(opts.env ? { environment: opts.env } : {}), ...(opts.reveal ? { reveal: true } : {}) })) items.push(c as Configuration);
    if (opts.json) return printJson(items);
    printTable(['ENV', 'KEY', 'VALUE'], items.map((c) => [c.environment, c.key, c.secret && c.value === null ? '(secret)' : c.value]), 'No variables.');
  });
  examples(
    common(env.command('set'), { project: true })
      .description('Set a variable (created, or its value changed); the value "-" or none reads it from standard input')
      .argument('<key>', 'the key, e.g. DATABASE_URL')
      .argument('[value]', 'the value ("-" or left out: read from standard input, so it stays out of your shell history)')
      .requiredOption('-e, --env <environment>', 'the environment')
      .option('-s, --secret', 'a secret: encrypted at rest, never shown again without --reveal'),
    ['slip env set LOG_LEVEL debug --project checkout --env staging', 'printf %s "$DB_URL" | slip env set DATABASE_URL --secret -p checkout -e production'],
  ).action(async (key: string, value: string | undefined, opts: Common & { env: string; secret?: boolean }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    const text = value === undefined || value === '-' ? await readStdin() : value;
    let existing: Configuration | undefined;
    for await (const c of conn.client.configurations.listAll(project, { per_page: 100, environment: opts.env })) {
      if (c.key === key) existing = c as Configuration;
    }
    const result = (
      existing
        ? await conn.client.configurations.update(project, existing.id, { value: text, ...(opts.secret ? { secret: true } : {}) })
        : await conn.client.configurations.create(project, { environment: opts.env, key, value: text, ...(opts.secret ? { secret: true } : {}) })
    ) as Configuration;
    if (opts.json) return printJson(result);
    process.stdout.write(`${existing ? 'Updated' : 'Set'} ${key} in ${opts.env}${result.secret ? ' (secret)' : ''}.\n`);
  });
  examples(
    common(env.command('unset'), { project: true }).description('Delete a variable').argument('<key>', 'the key').requiredOption('-e, --env <environment>', 'the environment'),
    ['slip env unset LOG_LEVEL --project checkout --env staging'],
  ).action(async (key: string, opts: Common & { env: string }) => {
    const conn = await connect(opts.url, process.env, opts.project);
    const project = await projectId(conn.client, opts.project);
    let existing: Configuration | undefined;
    for await (const c of conn.client.configurations.listAll(project, { per_page: 100, environment: opts.env })) {
      if (c.key === key) existing = c as Configuration;
    }
    if (!existing) throw new CliError(`${key} is not set in ${opts.env}.`, EXIT.refused, 'not_found');
    await conn.client.configurations.delete(project, existing.id);
    if (opts.json) return printJson({ id: existing.id, environment: opts.env, key, deleted: true });
    process.stdout.write(`Unset ${key} in ${opts.env}.\n`);
  });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  // Every command's own errors (unknown option, missing argument) are usage errors too.
  const override = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(override);
  };
  override(program);
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      // Commander printed the message already.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const { message, exitCode, code } = describeError(err);
    if (json) process.stderr.write(`${JSON.stringify({ error: { code: code ?? 'error', message, exit_code: exitCode } })}\n`);
    else say(`slip: ${message}`);
    return exitCode;
  }
}

export { normalizeUrl };
export type { Connection };
