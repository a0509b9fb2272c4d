import { randomBytes } from 'node:crypto';
import type { PageRequest, PageResult } from '../domain/page.ts';
import type { Principal } from '../domain/principal.ts';
import { authorize } from '../domain/policy.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import type { Changes } from '../lib/changes.ts';
import { sha256Hex } from '../lib/hash.ts';
import type { AccountRepository } from '../repositories/accounts.ts';
import type { ConsentRepository } from '../repositories/consents.ts';
import type { OAuthClientDoc, OAuthClientRepository } from '../repositories/oauthClients.ts';
import { revokedClientKey } from '../repositories/revokedGrants.ts';
import { CLIENT_DEFAULTS, type OperatorClientInput, type RegisterClientBody } from '../schemas/oauthClients.ts';
import { createOnce } from './createOnce.ts';
import { foldLookalike } from '../lib/lookalike.ts';
import type { QuotaService } from './quotas.ts';
import { actorOf, recordEvent, type EventLogDeps } from './events.ts';
import { revokeGrants, type GrantRevocationDeps } from './grantRevocation.ts';

export const hashClientSecret = sha256Hex;
/** `cli_` + 20 base62 characters (about 119 bits). */
export const newClientId = () => `cli_${randomBytes(16).toString('base64url').replace(/[-_]/g, '').slice(0, 20)}`;

const newClientSecret = () => `slwcs_${randomBytes(32).toString('base64url')}`;

/** A client as registered: its secret (confidential clients) in plain text this once, else null. */
export interface IssuedClient {
  client: OAuthClientDoc;
  clientSecret: string | null;
}

export interface OAuthClientRepos extends GrantRevocationDeps, EventLogDeps {
  oauthClients: OAuthClientRepository;
  accounts: AccountRepository;
  consents: ConsentRepository;
}

/**
 * The OAuth clients of an account (/v1/oauth_clients, Settings › OAuth Apps, `slipway clients`). Every
 * change to the set of clients is told on `changes` (`oauthClientsChanged`): the CORS origins are
 * derived from their redirect URIs.
 *
 * Two ways in: `register` for an account's admins (always third-party: its input cannot say
 * `first_party`, and it records `oauth_client.created`), and `registerAsOperator` for the admin CLI's
 * system principal only, the one way to a first-party client (no consent page). Skipping consent is a
 * trust decision about the operator's own apps: an account admin could otherwise register a
 * "first-party" client and obtain tokens for users of other accounts without asking them.
 */
export class OAuthClientService {
  readonly #repos: OAuthClientRepos;
  readonly #changes: Changes;
  readonly #quotas: QuotaService;

  constructor({ repos, changes, quotas }: { repos: OAuthClientRepos; changes: Changes; quotas: QuotaService }) {
    this.#repos = repos;
    this.#quotas = quotas;
    this.#changes = changes;
  }

  /**
   * Registers a third-party client in the principal's account; the secret (confidential clients) is
   * returned once. `id` is the id reserved for this request (Idempotency-Key): a client that already
   * has it was registered by an earlier run and is the answer, without its secret (rotate it for a
   * new one).
   */
  async register(principal: Principal, input: RegisterClientBody, id?: string): Promise<IssuedClient> {
    authorize(principal, 'create', 'oauth_client');
    // The schema refuses the product's name; first-party apps' names are looked up here.
    const folded = foldLookalike(input.client_name);
    if ((await this.#repos.oauthClients.firstPartyNames()).some((name) => foldLookalike(name) === folded))
      throw validationFailed([{ field: 'client_name', message: 'is the name of one of our own apps; choose another' }]);
    const clientId = id ?? newClientId();
    const { doc } = await createOnce(
      id,
      async (existing) => {
        const client = await this.#repos.oauthClients.findInAccount(principal.accountId, existing);
        return client ? { client, clientSecret: null } : null;
      },
      async () => {
        const issued = await this.#quotas.withSlot(principal, 'oauth_clients', clientId, () => this.#insert(principal.accountId, input, false, clientId));
        const { client } = issued;
        await recordEvent(this.#repos, {
          accountId: client.account_id,
          type: 'oauth_client.created',
          actor: actorOf(principal),
          data: { client_id: client._id, client_name: client.client_name, token_endpoint_auth_method: client.token_endpoint_auth_method, grant_types: client.grant_types },
          at: client.created_at,
        });
        return issued;
      },
    );
    return doc;
  }

  /**
   * The operator's registration (`slipway clients create [--first-party]`; test servers): the same
   * fields, and `first_party`. Only the system principal may use it (403 otherwise); its account must
   * exist (422 on `account_id`).
   */
  async registerAsOperator(principal: Principal, input: OperatorClientInput): Promise<IssuedClient> {
    authorize(principal, 'create_as_operator', 'oauth_client');
    if (!(await this.#repos.accounts.findById(principal.accountId))) throw validationFailed([{ field: 'account_id', message: 'no such account' }]);
    const clientId = newClientId();
    return await this.#quotas.withSlot(principal, 'oauth_clients', clientId, () => this.#insert(principal.accountId, input, input.first_party ?? false, clientId));
  }

  async #insert(accountId: string, input: Omit<OperatorClientInput, 'first_party'>, firstParty: boolean, id: string): Promise<IssuedClient> {
    const method = input.token_endpoint_auth_method ?? CLIENT_DEFAULTS.token_endpoint_auth_method;
    const clientSecret = method === 'client_secret_basic' ? newClientSecret() : null;
    const now = new Date();
    const client: OAuthClientDoc = {
      _id: id,
      account_id: accountId,
      client_name: input.client_name,
      redirect_uris: [...new Set(input.redirect_uris ?? [])],
      token_endpoint_auth_method: method,
      grant_types: [...new Set(input.grant_types ?? CLIENT_DEFAULTS.grant_types)],
      scope: [...new Set((input.scope ?? CLIENT_DEFAULTS.scope).trim().split(/\s+/))].join(' '),
      first_party: firstParty,
      dpop_bound_access_tokens: input.dpop_bound_access_tokens ?? false,
      require_pushed_authorization_requests: input.require_pushed_authorization_requests ?? false,
      client_secret_hash: clientSecret ? hashClientSecret(clientSecret) : null,
      created_at: now,
      updated_at: now,
    };
    await this.#repos.oauthClients.insert(client);
    this.#changes.emit('oauthClientsChanged');
    return { client, clientSecret };
  }

  async list(principal: Principal, page: PageRequest): Promise<PageResult<OAuthClientDoc>> {
    authorize(principal, 'list', 'oauth_client');
    return await this.#repos.oauthClients.page(principal.accountId, page);
  }

  /** The client, or 404 whether it does not exist or belongs to another account. */
  async get(principal: Principal, clientId: string): Promise<OAuthClientDoc> {
    authorize(principal, 'read', 'oauth_client');
    const client = await this.#repos.oauthClients.findInAccount(principal.accountId, clientId);
    if (!client) throw notFound('No such OAuth client.');
    return client;
  }

  /**
   * A new secret for a confidential client, returned once; the old one stops working at once (the
   * provider reads clients from the database on every request). Public clients have no secret: 409
   * `conflict`.
   */
  async rotateSecret(principal: Principal, clientId: string): Promise<{ client: OAuthClientDoc; clientSecret: string }> {
    authorize(principal, 'rotate_secret', 'oauth_client');
    const clientSecret = newClientSecret();
    const now = new Date();
    const client = await this.#repos.oauthClients.replaceSecretHash(principal.accountId, clientId, hashClientSecret(clientSecret), now);
    if (!client) {
      await this.get(principal, clientId);
      throw conflict('A public client has no secret to rotate.');
    }
    await recordEvent(this.#repos, {
      accountId: client.account_id,
      type: 'oauth_client.secret_rotated',
      actor: actorOf(principal),
      data: { client_id: client._id, client_name: client.client_name },
      at: now,
    });
    return { client, clientSecret };
  }

  /**
   * Deletes the client, then revokes every grant made to it (found through consents and Grant
   * payloads): its refresh tokens and codes are deleted and its access JWTs refused via
   * `revoked_grants`. Its client_credentials tokens carry no grant: /v1 must refuse tokens of a client
   * that no longer exists.
   */
  async delete(principal: Principal, clientId: string): Promise<{ client: OAuthClientDoc; revokedGrants: number }> {
    authorize(principal, 'delete', 'oauth_client');
    const repos = this.#repos;
    const client = await repos.oauthClients.delete(principal.accountId, clientId);
    if (!client) throw notFound('No such OAuth client.');
    await this.#quotas.release('oauth_clients', client._id);
    // Every access token of the client (user and client_credentials) is refused from the next request on
    // this instance, and within revocationRefreshSeconds on the others.
    await repos.revokedGrants.add(revokedClientKey(client._id));
    this.#changes.emit('oauthClientsChanged');
    const grantIds = [...(await repos.consents.grantIdsForClient(client._id)), ...(await repos.oidcArtifacts.grantIdsForClient(client._id))];
    const revokedGrants = await revokeGrants(repos, grantIds);
    await repos.consents.deleteForClient(client._id);
    await recordEvent(repos, {
      accountId: client.account_id,
      type: 'oauth_client.deleted',
      actor: actorOf(principal),
      data: { client_id: client._id, client_name: client.client_name, revoked_grants: revokedGrants },
    });
    return { client, revokedGrants };
  }
}
