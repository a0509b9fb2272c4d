import { createHash } from 'node:crypto';
import type { Config } from '../config/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { Repositories } from '../repositories/index.ts';
import type { UserDoc } from '../repositories/users.ts';
import type { Role } from '../domain/principal.ts';
import { SharedBudget } from '../repositories/sharedBudget.ts';
import { verifyAgainstDummy, verifyPassword } from './passwords.ts';
import { Service } from './service.ts';

export type LoginLimits = Pick<Config, 'loginPerEmailAndSourcePerMinute' | 'loginPerSourcePerMinute' | 'loginPerEmailPerMinute' | 'loginPerDevicePerMinute'>;

export type LoginServiceDeps = Pick<Repositories, 'users' | 'identities' | 'rateLimits' | 'oauthClients' | 'accounts' | 'consents'> & { limits: LoginLimits; clock: Clock };

/**
 * A browser that signed a person in before (src/oauth/deviceCookie.ts): its attempts at that person
 * have a budget of their own. `userId` names one of the person's memberships (or the person).
 */
export interface KnownDevice {
  userId: string;
  deviceId: string;
}

export interface SignInAttempt {
  /** As typed; compared trimmed and in lower case. */
  email: string;
  password: string;
  /** Where the attempt comes from (an address, an IPv6 /64: `sourceKey`). */
  source: string;
  /** The device cookie the browser carries, if any. */
  device?: KnownDevice;
}

/** One of a person's accounts, as the account chooser offers it. */
export interface AccountChoice {
  accountId: string;
  name: string;
  role: Role;
}

export type SignInResult =
  /** `email` as compared, to fill the form in again. `userId`: the membership signed in to. */
  | { outcome: 'signed-in'; userId: string; email: string }
  /** The person has several accounts and the request named none of them: they choose (`chooseAccount`). */
  | { outcome: 'choose'; identityId: string; email: string; accounts: AccountChoice[] }
  /** Unknown e-mail or wrong password: which one is never told. */
  | { outcome: 'refused'; email: string }
  | { outcome: 'throttled'; retryAfterSeconds: number; email: string };

/** A person's e-mail and password checked, before any account is chosen (the invitation page). */
export type PersonCheck =
  | { outcome: 'signed-in'; identityId: string; email: string }
  | { outcome: 'refused'; email: string }
  | { outcome: 'throttled'; retryAfterSeconds: number; email: string };

/** The client an authorization is for, as the sign-in and consent pages name it. */
export interface InteractionClient {
  id: string;
  name: string;
  firstParty: boolean;
  accountId: string | null;
}

/** What the consent page tells the user, so a look-alike name cannot pass for another app. */
export interface ConsentFacts {
  userEmail: string;
  /** The organization that registered the client. */
  registeredBy: string;
  /** The client was registered by an organization other than the user's own. */
  otherOrganization: boolean;
}

const WINDOW_SECONDS = 60;
const MAX_EMAIL = 254;
const MAX_PASSWORD = 1024;

/**
 * Signing in to the authorization server (its login page, src/oauth/interactions.ts) and the consent
 * that follows. There is no principal yet: signing in is what makes one. The rules are here; the page
 * parses the form, keeps the device cookie and renders the answer.
 */
export class LoginService extends Service<LoginServiceDeps> {
  /**
   * The sign-in budgets, shared by every instance (SharedBudget: numbered shares claimed by unique
   * insert, exact where FerretDB 1.24's `$inc` loses counts between instances).
   */
  readonly #budgets: LoginBudgets;

  constructor(deps: LoginServiceDeps) {
    super(deps);
    const { rateLimits, limits } = deps;
    this.#budgets = {
      device: new SharedBudget(rateLimits, limits.loginPerDevicePerMinute, WINDOW_SECONDS, 'login-device'),
      source: new SharedBudget(rateLimits, limits.loginPerSourcePerMinute, WINDOW_SECONDS, 'login-ip'),
      emailAndSource: new SharedBudget(rateLimits, limits.loginPerEmailAndSourcePerMinute, WINDOW_SECONDS, 'login-email-ip'),
      email: new SharedBudget(rateLimits, limits.loginPerEmailPerMinute, WINDOW_SECONDS, 'login-email'),
      userCode: new SharedBudget(rateLimits, limits.loginPerSourcePerMinute, WINDOW_SECONDS, 'user-code-ip'),
    };
  }

  /**
   * Counts a submission of the device code page (RFC 8628 §5.1: user codes can be guessed) from `source`
   * (an address, an IPv6 /64: `sourceKey`); the seconds until the next may be tried when the source's
   * budget is spent. Every submission counts (a right or wrong code, its confirmation): as many a
   * minute as sign-in attempts from one source (LOGIN_PER_SOURCE_PER_MINUTE), in a budget of their own.
   */
  async userCodeAttempt(source: string): Promise<number | undefined> {
    return await spent(this.#budgets.userCode, source, this.deps.clock.now());
  }

  /**
   * Checks an e-mail and password. Throttled first (docs/security.md, "Login throttling"): a guess at one e-mail
   * from one source, every attempt from one source (password spraying), and a high ceiling per e-mail
   * over all sources, which counts only the attempts both source budgets admitted (the ones checked).
   * Wrong passwords from one source never lock the user out of another: one source alone cannot reach
   * the ceiling. A browser that signed this user in before is counted in its own
   * budget instead, so attempts from elsewhere, however many sources they come from, cannot lock it out.
   * An unknown e-mail costs the time of a password check too. A success is recorded on the user.
   */
  async signIn(attempt: SignInAttempt, accountHint?: string): Promise<SignInResult> {
    const checked = await this.checkPerson(attempt);
    if (checked.outcome !== 'signed-in') return checked;
    // docs/product.md §11: a person with several accounts signs in to one of them, the one the request
    // names (`account_hint`) or the one they choose; every credential of this sign-in acts in it alone.
    const memberships = await this.deps.users.activeForIdentity(checked.identityId);
    if (memberships.length === 0) return { outcome: 'refused', email: checked.email };
    const chosen = memberships.find((m) => m.account_id === accountHint) ?? (memberships.length === 1 ? memberships[0] : undefined);
    if (!chosen) return { outcome: 'choose', identityId: checked.identityId, email: checked.email, accounts: await this.#choices(memberships) };
    await this.deps.users.recordLogin(chosen._id, this.deps.clock.date());
    return { outcome: 'signed-in', userId: chosen._id, email: checked.email };
  }

  /** The chooser's answer: the person's membership in `accountId`, signed in to; null when they are no (longer) member there. */
  async chooseAccount(identityId: string, accountId: string): Promise<string | null> {
    const membership = (await this.deps.users.activeForIdentity(identityId)).find((m) => m.account_id === accountId);
    if (!membership) return null;
    await this.deps.users.recordLogin(membership._id, this.deps.clock.date());
    return membership._id;
  }

  async #choices(memberships: UserDoc[]): Promise<AccountChoice[]> {
    const accounts = await Promise.all(memberships.map((m) => this.deps.accounts.findById(m.account_id)));
    return memberships.map((m, i) => ({ accountId: m.account_id, name: accounts[i]?.name ?? m.account_id, role: m.role }));
  }

  /**
   * The person behind an e-mail and password, throttled as `signIn` is (it is the same guess): for the
   * invitation page, where the person proves who they are before accepting.
   */
  async checkPerson(attempt: SignInAttempt): Promise<PersonCheck> {
    const email = attempt.email.trim().toLowerCase().slice(0, MAX_EMAIL);
    const password = attempt.password.slice(0, MAX_PASSWORD);
    const person = email ? await this.deps.identities.findByEmail(email) : null;
    const knownDevice = person && attempt.device && (await this.#isTheirs(attempt.device, person._id)) ? attempt.device : undefined;
    const retryAfterSeconds = await this.#throttle(email, attempt.source, knownDevice);
    if (retryAfterSeconds !== undefined) return { outcome: 'throttled', retryAfterSeconds, email };
    const ok = person?.password_hash ? await verifyPassword(person.password_hash, password) : await verifyAgainstDummy(password);
    if (!person || !ok) return { outcome: 'refused', email };
    return { outcome: 'signed-in', identityId: person._id, email };
  }

  /** Whether a device cookie names this person or one of their memberships. */
  async #isTheirs(device: KnownDevice, identityId: string): Promise<boolean> {
    if (device.userId === identityId) return true;
    const membership = await this.deps.users.findById(device.userId);
    return membership?.identity_id === identityId;
  }

  /**
   * Counts the attempt in its budgets; the seconds until the next may be tried when one is spent. The
   * source's budget first, then the e-mail's from that source, then the per-e-mail ceiling: each counts
   * only an attempt the ones before admitted, so the ceiling counts the attempts whose password will be
   * checked. An attempt its source's own limits refuse never
   * reaches the ceiling, so one source alone (at most `loginPerEmailAndSourcePerMinute` checked
   * attempts at an e-mail a minute) cannot lock the e-mail out for everyone else.
   */
  async #throttle(email: string, source: string, device: KnownDevice | undefined): Promise<number | undefined> {
    const budgets = this.#budgets;
    const now = this.deps.clock.now();
    if (device) return await spent(budgets.device, device.deviceId, now);
    const emailKey = createHash('sha256').update(email).digest('base64url');
    // One after the other: each budget counts only the attempts the ones before it admitted, so the
    // attempts checked are exactly those every budget admitted, however many arrive at once.
    return (
      (await spent(budgets.source, source, now)) ??
      (await spent(budgets.emailAndSource, `${emailKey}:${source}`, now)) ??
      (await spent(budgets.email, emailKey, now))
    );
  }


  /** The client by its id (an unknown id is named by itself, trusted by nobody). */
  async client(clientId: string): Promise<InteractionClient> {
    const client = await this.deps.oauthClients.findById(clientId);
    return { id: clientId, name: client?.client_name ?? clientId, firstParty: client?.first_party ?? false, accountId: client?.account_id ?? null };
  }

  /** Who is asked, and who registered the client: the consent page's facts (docs/tenant-isolation.md). */
  async consentFacts(client: InteractionClient, userId: string): Promise<ConsentFacts> {
    const user = await this.deps.users.findById(userId);
    const registeredBy = client.accountId ? await this.deps.accounts.findById(client.accountId) : null;
    return {
      userEmail: user?.email ?? '',
      registeredBy: registeredBy?.name ?? 'an unknown organization',
      otherOrganization: !user || client.accountId !== user.account_id,
    };
  }

  /** Remembers the user's consent to the client, so another browser session of theirs is not asked again. */
  async rememberConsent(userId: string, clientId: string, grantId: string): Promise<void> {
    await this.deps.consents.remember(userId, clientId, grantId);
  }
}

interface LoginBudgets {
  device: SharedBudget;
  source: SharedBudget;
  emailAndSource: SharedBudget;
  email: SharedBudget;
  /** Submissions of the device code page per source (userCodeAttempt). */
  userCode: SharedBudget;
}

/** Takes one attempt from `key`'s budget: undefined when admitted, else the seconds until its window ends. */
async function spent(budget: SharedBudget, key: string, now: number): Promise<number | undefined> {
  const taken = await budget.take(key, now);
  return taken.count === null ? taken.resetSeconds : undefined;
}
