import { decodeJwt, decodeProtectedHeader, errors as joseErrors, generateKeyPair, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { MAX_SUBJECT_TOKEN_BYTES, SUBJECT_TOKEN_TYPES } from '../domain/federation.ts';
import { expandScopes, SCOPE_ORDER, type Principal, type Scope } from '../domain/principal.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../logger.ts';
import type { Repositories } from '../repositories/index.ts';
import type { TrustPolicyDoc } from '../repositories/trustPolicies.ts';
import type { EventLog } from './eventLog.ts';
import type { IssuerKeys } from './issuerKeys.ts';
import { Service } from './service.ts';

/** docs/product.md §13: the only signature algorithms a subject token may use. */
export const SUBJECT_TOKEN_ALGORITHMS = ['RS256', 'ES256'];
/** A subject token's `iat` may be at most this old. */
const MAX_TOKEN_AGE_SECONDS = 300;
/** Clock skew tolerated on `exp`, `nbf` and `iat`. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** How long a used `jti` is remembered after its token expired (the token is refused for `exp` after that anyway). */
const JTI_KEEP_MARGIN_MS = 60_000;

/** An OAuth refusal of the exchange: RFC 6749 §5.2 / RFC 8693 §2.2.2 error code and description. */
export class ExchangeRefused extends Error {
  readonly error: 'invalid_request' | 'invalid_grant' | 'invalid_target' | 'invalid_scope';
  constructor(error: ExchangeRefused['error'], description: string) {
    super(description);
    this.name = 'ExchangeRefused';
    this.error = error;
  }
}

/**
 * The one refusal of a subject token that is not acceptable, whatever the reason: unreadable, wrong
 * algorithm, no policy trusts its issuer, bad signature, expired, too old, audience or claims that match
 * no policy, used already. It tells nobody which projects trust which issuer.
 */
const untrusted = () => new ExchangeRefused('invalid_grant', 'The subject token is not acceptable.');

export interface ExchangeRequest {
  subjectToken: unknown;
  subjectTokenType: unknown;
  /** `audience`: the project (`proj_…`) when policies of several projects match. */
  audience?: unknown;
  scope?: unknown;
  requestedTokenType?: unknown;
  actorToken?: unknown;
}

/** What an accepted exchange issues: a token acting as the policy's project. */
export interface ExchangeDecision {
  policy: TrustPolicyDoc;
  scopes: Scope[];
  ttlSeconds: number;
  issuer: string;
  sub: string | null;
  /** The claims the policy required, with the values the token carried (equal by construction). */
  matched: Record<string, string>;
  /** The principal the issued token will be in /v1 (for the event). */
  principal: Principal;
}

export interface TokenExchangeDeps {
  trustPolicies: Repositories['trustPolicies'];
  federation: Repositories['federation'];
  issuerKeys: IssuerKeys;
  eventLog: EventLog;
  clock: Clock;
  logger: Logger;
}

function audiences(payload: JWTPayload): string[] {
  if (typeof payload.aud === 'string') return [payload.aud];
  return Array.isArray(payload.aud) ? payload.aud.filter((a): a is string => typeof a === 'string') : [];
}

/** Whether the token carries every claim of the policy with exactly its value (strings only; `*` is a character). */
function matches(policy: TrustPolicyDoc, payload: JWTPayload): boolean {
  if (!audiences(payload).includes(policy.audience)) return false;
  return policy.claims.every(({ name, value }) => Object.hasOwn(payload, name) && payload[name] === value);
}

/** The principal an exchanged token acts as in /v1 (src/auth/accessTokens.ts builds the same from its claims). */
export function federatedPrincipal(policy: Pick<TrustPolicyDoc, '_id' | 'account_id' | 'project_id' | 'environments'>, scopes: Iterable<string>, jti?: string): Principal {
  return {
    kind: 'federated',
    id: policy._id,
    accountId: policy.account_id,
    projectId: policy.project_id,
    environments: policy.environments,
    scopes: new Set([...expandScopes(scopes)].filter((s) => s !== 'admin')),
    credential: 'access_token',
    ...(jti ? { credentialId: jti } : {}),
  };
}

/**
 * RFC 8693 token exchange for CI (docs/product.md §13): decides whether a CI provider's JWT may be
 * exchanged, and for which trust policy. The authorization server (src/oauth/provider/tokenExchange.ts)
 * asks `decide`, issues the token, then `recordExchanged`.
 */
export class TokenExchangeService extends Service<TokenExchangeDeps> {
  async decide(request: ExchangeRequest): Promise<ExchangeDecision> {
    const { subjectToken, subjectTokenType } = request;
    if (typeof subjectToken !== 'string' || !subjectToken) throw new ExchangeRefused('invalid_request', 'subject_token is required.');
    if (typeof subjectTokenType !== 'string' || !(SUBJECT_TOKEN_TYPES as readonly string[]).includes(subjectTokenType))
      throw new ExchangeRefused('invalid_request', `subject_token_type must be ${SUBJECT_TOKEN_TYPES.join(' or ')}.`);
    if (request.actorToken !== undefined) throw new ExchangeRefused('invalid_request', 'actor_token is not supported.');
    if (request.requestedTokenType !== undefined && request.requestedTokenType !== 'urn:ietf:params:oauth:token-type:access_token')
      throw new ExchangeRefused('invalid_request', 'requested_token_type must be urn:ietf:params:oauth:token-type:access_token.');
    if (Buffer.byteLength(subjectToken) > MAX_SUBJECT_TOKEN_BYTES) throw new ExchangeRefused('invalid_request', `subject_token is larger than ${MAX_SUBJECT_TOKEN_BYTES} bytes.`);
    const requested = this.#requestedScopes(request.scope);
    if (request.audience !== undefined && typeof request.audience !== 'string') throw new ExchangeRefused('invalid_request', 'audience must be one project id.');

    const payload = await this.#verified(subjectToken);
    const issuer = payload.iss!;
    const candidates = (await this.deps.trustPolicies.forIssuer(issuer, audiences(payload))).filter((policy) => matches(policy, payload));
    if (candidates.length === 0) throw untrusted();
    const policy = this.#choose(candidates, request.audience as string | undefined);
    const allowed = expandScopes(policy.scopes);
    const scopes = requested ? SCOPE_ORDER.filter((s) => requested.has(s)) : SCOPE_ORDER.filter((s) => allowed.has(s));
    if (scopes.some((s) => !allowed.has(s))) throw new ExchangeRefused('invalid_scope', 'The requested scope exceeds what the trust policy allows.');

    // Last: a token refused above is not spent. Of any number of exchanges of one token, on any instance, one passes.
    const jti = payload.jti!;
    if (!(await this.deps.federation.claimJti(issuer, jti, new Date((payload.exp as number) * 1000 + JTI_KEEP_MARGIN_MS)))) throw untrusted();
    const matched = Object.fromEntries(policy.claims.map(({ name, value }) => [name, value]));
    return {
      policy,
      scopes,
      ttlSeconds: policy.max_ttl_seconds,
      issuer,
      sub: typeof payload.sub === 'string' ? payload.sub : null,
      matched,
      principal: federatedPrincipal(policy, scopes),
    };
  }

  /** `token.exchanged` in the project's events: who (issuer, `sub`), through which policy, with which claims. */
  async recordExchanged(decision: ExchangeDecision, tokenId: string | undefined): Promise<void> {
    const { policy } = decision;
    const principal = tokenId ? { ...decision.principal, credentialId: tokenId } : decision.principal;
    await this.deps.eventLog.record(
      'token.exchanged',
      principal,
      { account_id: policy.account_id, project_id: policy.project_id },
      { trust_policy_id: policy._id, issuer: decision.issuer, sub: decision.sub, claims: decision.matched, scopes: decision.scopes, expires_in: decision.ttlSeconds },
      this.deps.clock.date(),
    );
  }

  #requestedScopes(scope: unknown): Set<string> | null {
    if (scope === undefined || scope === '') return null;
    if (typeof scope !== 'string') throw new ExchangeRefused('invalid_request', 'scope must be a string.');
    const names = scope.split(' ').filter(Boolean);
    if (names.some((n) => n !== 'read' && n !== 'write')) throw new ExchangeRefused('invalid_scope', 'scope may name read and write only.');
    return expandScopes(names);
  }

  /** One policy: the only project matched, or the one `audience` names; several projects without it is invalid_target. */
  #choose(candidates: TrustPolicyDoc[], audience: string | undefined): TrustPolicyDoc {
    if (audience !== undefined) {
      const inProject = candidates.filter((p) => p.project_id === audience);
      if (inProject.length === 0) throw new ExchangeRefused('invalid_target', 'No trust policy of that project accepts this token.');
      return inProject[0]!;
    }
    const projects = new Set(candidates.map((p) => p.project_id));
    if (projects.size > 1) throw new ExchangeRefused('invalid_target', 'Trust policies of several projects accept this token: name one with audience=proj_….');
    return candidates[0]!;
  }

  /**
   * For an issuer no policy names, the work a trusted issuer's refusal does (a signature check, with a
   * key of this process that signs nothing; the policies' lookup), so that how long a refusal takes does
   * not tell whether some project trusts the issuer. No key is fetched.
   */
  async #asIfTrusted(token: string, alg: string, issuer: string, unverified: JWTPayload): Promise<void> {
    await jwtVerify(token, await decoyKey(alg), { algorithms: [alg] }).catch(() => undefined);
    await this.deps.trustPolicies.forIssuer(issuer, audiences(unverified));
  }

  /**
   * The token's claims once it proved itself: RS256 or ES256 by a key of its issuer (which some policy
   * must name, else no key is ever fetched), `iss` exactly that issuer, `exp`, `nbf`, `iat` at most five
   * minutes old, a `jti`. Every failure is the one refusal.
   */
  async #verified(token: string): Promise<JWTPayload> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let unverified: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch {
      throw untrusted();
    }
    if (typeof header.alg !== 'string' || !SUBJECT_TOKEN_ALGORITHMS.includes(header.alg)) throw untrusted();
    const issuer = unverified.iss;
    if (typeof issuer !== 'string' || !issuer) throw untrusted();
    if (!(await this.deps.trustPolicies.anyForIssuer(issuer))) {
      await this.#asIfTrusted(token, header.alg, issuer, unverified);
      throw untrusted();
    }
    const keys = await this.deps.issuerKeys.keysFor(issuer, header.kid);
    if (!keys) throw untrusted();
    try {
      const { payload } = await jwtVerify(token, keys, {
        algorithms: SUBJECT_TOKEN_ALGORITHMS,
        issuer,
        currentDate: this.deps.clock.date(),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        maxTokenAge: MAX_TOKEN_AGE_SECONDS,
        requiredClaims: ['exp', 'iat', 'jti', 'aud'],
      });
      if (typeof payload.jti !== 'string' || !payload.jti) throw untrusted();
      return payload;
    } catch (err) {
      if (err instanceof ExchangeRefused) throw err;
      if (err instanceof joseErrors.JOSEError) throw untrusted();
      throw err;
    }
  }
}

const decoys = new Map<string, Promise<CryptoKey>>();
/** A public key per algorithm that verifies no token anyone has (its private half is dropped at once). */
function decoyKey(alg: string): Promise<CryptoKey> {
  let key = decoys.get(alg);
  if (!key) decoys.set(alg, (key = generateKeyPair(alg).then((pair) => pair.publicKey)));
  return key;
}
