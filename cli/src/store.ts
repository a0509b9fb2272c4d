/**
 * Where `slip login` keeps what it signs in with: the OS keychain where one answers, else a file that
 * only the user can read (mode 0600, in a 0700 folder). The choice is said out loud by `login` and
 * `whoami`, and `SLIPWAY_CREDENTIAL_STORE=keychain` (or `login --store keychain`) refuses to fall back.
 *
 * Keychains are reached through the OS's own tools, no native module: `secret-tool` (libsecret: GNOME
 * Keyring, KWallet…) on Linux and the BSDs, `security` (the login keychain) on macOS. Secrets go to
 * them on standard input, never on a command line.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, EXIT } from './errors.js';

/** What is stored per server: an OAuth sign-in (DPoP-bound tokens and their key) or a plain token. */
export interface StoredCredentials {
  url: string;
  kind: 'oauth' | 'token';
  /** kind `token`: an API key or any bearer token given to `login --with-token`. */
  token?: string;
  /** kind `oauth`: the client the tokens were issued to. */
  clientId?: string;
  tokens?: { accessToken: string; refreshToken?: string | undefined; expiresAt?: number | undefined; scope?: string | undefined; tokenType: string };
  /** kind `oauth`: the DPoP key pair's private JWK (ES256), without which the tokens are useless. */
  dpopKey?: JsonWebKey;
  user?: { id: string; email?: string | undefined; name?: string | undefined } | undefined;
  account?: { id: string; name?: string | undefined; role?: string | undefined } | undefined;
  storedAt: string;
}

export interface CredentialStore {
  kind: 'keychain' | 'file';
  /** For people: where the credentials are, e.g. "the file /home/you/.config/slipway/credentials.json (mode 0600)". */
  description: string;
  load(url: string): StoredCredentials | undefined;
  save(credentials: StoredCredentials): void;
  /** Whether something was there. */
  remove(url: string): boolean;
}

export type StorePreference = 'auto' | 'keychain' | 'file';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SLIPWAY_CONFIG_DIR) return path.resolve(env.SLIPWAY_CONFIG_DIR);
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'slipway');
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.join(base, 'slipway');
}

const SERVICE = 'slipway-cli';

function run(command: string, args: string[], input?: string): { ok: boolean; stdout: string; stderr: string; missing: boolean } {
  const result = spawnSync(command, args, { input: input ?? '', encoding: 'utf8', timeout: 10_000, stdio: ['pipe', 'pipe', 'pipe'] });
  const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { ok: !result.error && result.status === 0, stdout: result.stdout ?? '', stderr: (result.stderr ?? '') + (result.error ? String(result.error.message) : ''), missing };
}

/** libsecret through `secret-tool`: one secret per server, attributes `service=slipway-cli server=<url>`. */
class SecretToolStore implements CredentialStore {
  readonly kind = 'keychain' as const;
  readonly description = 'the OS keychain (Secret Service, through secret-tool)';

  load(url: string): StoredCredentials | undefined {
    const r = run('secret-tool', ['lookup', 'service', SERVICE, 'server', url]);
    if (!r.ok) {
      // Exit status 1 with nothing said: no such secret.
      if (r.stderr.trim() === '') return undefined;
      throw new CliError(`The keychain did not answer: ${r.stderr.trim()}`, EXIT.store);
    }
    return parseStored(r.stdout, this.description);
  }

  save(credentials: StoredCredentials): void {
    const r = run('secret-tool', ['store', `--label=Slipway CLI (${credentials.url})`, 'service', SERVICE, 'server', credentials.url], JSON.stringify(credentials));
    if (!r.ok) throw new CliError(`The keychain refused to store the credentials: ${r.stderr.trim()}`, EXIT.store);
  }

  remove(url: string): boolean {
    const had = this.load(url) !== undefined;
    run('secret-tool', ['clear', 'service', SERVICE, 'server', url]);
    return had;
  }
}

/** The macOS login keychain through `security` (commands on its standard input, so no secret in `ps`). */
class MacKeychainStore implements CredentialStore {
  readonly kind = 'keychain' as const;
  readonly description = 'the macOS login keychain';

  load(url: string): StoredCredentials | undefined {
    const r = run('security', ['find-generic-password', '-s', SERVICE, '-a', url, '-w']);
    if (!r.ok) return undefined;
    return parseStored(r.stdout, this.description);
  }

  save(credentials: StoredCredentials): void {
    const quote = (s: string) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;
    const line = `add-generic-password -U -s ${quote(SERVICE)} -a ${quote(credentials.url)} -l ${quote(`Slipway CLI (${credentials.url})`)} -w ${quote(JSON.stringify(credentials))}\n`;
    const r = run('security', ['-i'], line);
    if (!r.ok || /error/i.test(r.stderr)) throw new CliError(`The keychain refused to store the credentials: ${r.stderr.trim()}`, EXIT.store);
  }

  remove(url: string): boolean {
    return run('security', ['delete-generic-password', '-s', SERVICE, '-a', url]).ok;
  }
}

/** A JSON file readable by the user alone: mode 0600 in a 0700 folder, written whole and renamed into place. */
export class FileStore implements CredentialStore {
  readonly kind = 'file' as const;
  readonly file: string;
  readonly description: string;

  constructor(dir: string) {
    this.file = path.join(dir, 'credentials.json');
    this.description = `the file ${this.file} (mode 0600, readable by you alone)`;
  }

  #read(): Record<string, StoredCredentials> {
    if (!existsSync(this.file)) return {};
    if (process.platform !== 'win32') {
      const mode = statSync(this.file).mode & 0o777;
      if (mode & 0o077) throw new CliError(`${this.file} can be read by others (mode 0${mode.toString(8)}): refusing to use it. Run \`chmod 600 ${this.file}\` or \`slip logout\` and sign in again.`, EXIT.store);
    }
    const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { servers?: Record<string, StoredCredentials> };
    return parsed.servers ?? {};
  }

  #write(servers: Record<string, StoredCredentials>): void {
    const dir = path.dirname(this.file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ servers }, null, 2)}\n`, { mode: 0o600, flag: 'w' });
    chmodSync(temp, 0o600);
    renameSync(temp, this.file);
  }

  load(url: string): StoredCredentials | undefined {
    return this.#read()[url];
  }

  save(credentials: StoredCredentials): void {
    this.#write({ ...this.#read(), [credentials.url]: credentials });
  }

  remove(url: string): boolean {
    const servers = this.#read();
    if (!(url in servers)) return false;
    delete servers[url];
    if (Object.keys(servers).length === 0) rmSync(this.file, { force: true });
    else this.#write(servers);
    return true;
  }
}

function parseStored(text: string, where: string): StoredCredentials {
  try {
    return JSON.parse(text.trim()) as StoredCredentials;
  } catch {
    throw new CliError(`What ${where} holds for Slipway is not readable: run \`slip logout\` and sign in again.`, EXIT.store);
  }
}

/** The OS keychain if one answers now, with the reason when none does. */
export function findKeychain(): { store: CredentialStore } | { reason: string } {
  if (process.platform === 'darwin') {
    const r = run('security', ['default-keychain']);
    return r.ok ? { store: new MacKeychainStore() } : { reason: r.missing ? '`security` was not found' : `\`security\` did not answer (${r.stderr.trim()})` };
  }
  if (process.platform === 'win32') return { reason: 'the Windows Credential Manager is not supported yet' };
  // A lookup of a key that is never stored: exit status 1 and silence when the Secret Service answers.
  const r = run('secret-tool', ['lookup', 'service', SERVICE, 'probe', 'probe']);
  if (r.missing) return { reason: 'secret-tool (libsecret) is not installed' };
  if (r.stderr.trim() !== '') return { reason: `no Secret Service answered (${r.stderr.trim().split('\n')[0]})` };
  return { store: new SecretToolStore() };
}

export function storePreference(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): StorePreference {
  const value = (flag ?? env.SLIPWAY_CREDENTIAL_STORE ?? 'auto').toLowerCase();
  if (value === 'auto' || value === 'keychain' || value === 'file') return value;
  throw new CliError(`The credential store must be auto, keychain or file (got "${value}").`, EXIT.usage);
}

/**
 * The store to write to: `keychain` refuses when none answers (never a silent fallback), `file` is the
 * file, `auto` the keychain where one answers, else the file, with the reason in `fallback`.
 */
export function chooseStore(preference: StorePreference, env: NodeJS.ProcessEnv = process.env): { store: CredentialStore; fallback?: string } {
  if (preference === 'file') return { store: new FileStore(configDir(env)) };
  const keychain = findKeychain();
  if ('store' in keychain) return keychain;
  if (preference === 'keychain') {
    throw new CliError(
      `No OS keychain answered (${keychain.reason}) and the file store is not allowed (SLIPWAY_CREDENTIAL_STORE=keychain or --store keychain): refusing to store the credentials. Nothing was saved.`,
      EXIT.store,
    );
  }
  return { store: new FileStore(configDir(env)), fallback: keychain.reason };
}

/** Where the credentials of `url` are now, looking in the keychain (if one answers) and the file. */
export function findStored(url: string, env: NodeJS.ProcessEnv = process.env): { store: CredentialStore; credentials: StoredCredentials } | undefined {
  const preference = storePreference(undefined, env);
  const stores: CredentialStore[] = [];
  if (preference !== 'file') {
    const keychain = findKeychain();
    if ('store' in keychain) stores.push(keychain.store);
  }
  if (preference !== 'keychain') stores.push(new FileStore(configDir(env)));
  for (const store of stores) {
    const credentials = store.load(url);
    if (credentials) return { store, credentials };
  }
  return undefined;
}

/** The settings file (no secrets): the server signed in to last. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): { url?: string } {
  const file = path.join(configDir(env), 'config.json');
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { url?: string };
  } catch {
    return {};
  }
}

export function writeSettings(settings: { url?: string | undefined }, env: NodeJS.ProcessEnv = process.env): void {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dir, 'config.json'), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
}
