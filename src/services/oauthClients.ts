import { randomBytes } from 'node:crypto';
import type { Principal } from '../domain/principal.ts';
import { authorize } from '../domain/policy.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import type { Changes } from '../lib/changes.ts';
import { sha256Hex } from '../lib/hash.ts';
import { newId } from '../lib/ids.ts';
import type { Repositories } from '../repositories/index.ts';
import type { OAuthClientDoc } from '../repositories/oauthClients.ts';
import { revokedClientKey } from '../repositories/revokedGrants.ts';
import { CLIENT_DEFAULTS, type OperatorClientInput, type RegisterClientBody } from '../schemas/oauthClients.ts';
import { createOnce } from './createOnce.ts';
import { foldLookalike } from '../lib/lookalike.ts';
import type { QuotaService } from './quotas.ts';
import type { EventLog } from './eventLog.ts';
import type { GrantRevocation } from './grantRevocation.ts';
import { AccountRecordService, AccountRecords } from './accountRecords.ts';
export type { OAuthClientDoc } from '../repositories/oauthClients.ts';

export const hashClientSecret = sha256Hex;

const newClientSecret = () => `slwcs_${randomBytes(32).toString('base64url')}`;

/** A client as registered: its secret (confidential clients) in plain text this once, else null. */
export interface IssuedClient {
  client: OAuthClientDoc;
  clientSecret: string | null;
}

export interface OAuthClientServiceDeps extends Pick<Repositories, 'oauthClients' | 'accounts' | 'consents' | 'revokedGrants' | 'oidcArtifacts'> {
  eventLog: EventLog;
  /** Ends the grants made to a deleted client. */
  grants: GrantRevocation;
  quotas: QuotaService;
  /** Tells this process (the CORS origins) at once that the set of clients changed. */
  changes: Changes;
}

/** What the audit log says of a client: never its secret. */
function eventData(client: OAuthClientDoc) {
  return { client_id: client._id, client_name: client.client_name };
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
export class OAuthClientService extends AccountRecordService<OAuthClientServiceDeps, OAuthClientDoc, 'oauth_client'> {
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
    if ((await this.deps.oauthClients.firstPartyNames()).some((name) => foldLookalike(name) === folded))
      throw validationFailed([{ field: 'client_name', message: 'is the name of one of our own apps; choose another' }]);
    const clientId = id ?? newId('oauthClient');
    const { doc } = await createOnce(id, (existing) => this.#registeredBefore(principal, existing), () => this.#registerNew(principal, input, clientId));
    return doc;
  }

  /** A client an earlier run of the same request registered: the answer again, without its secret. */
  async #registeredBefore(principal: Principal, clientId: string): Promise<IssuedClient | null> {
    const client = await this.deps.oauthClients.findInAccount(principal.accountId, clientId);
    return client ? { client, clientSecret: null } : null;
  }

  async #registerNew(principal: Principal, input: RegisterClientBody, clientId: string): Promise<IssuedClient> {
    const issued = await this.deps.quotas.withSlot(principal, 'oauth_clients', clientId, () => this.#insert(principal.accountId, input, false, clientId));
    const { client } = issued;
    const data = { ...eventData(client), token_endpoint_auth_method: client.token_endpoint_auth_method, grant_types: client.grant_types };
    await this.deps.eventLog.record('oauth_client.created', principal, client, data, client.created_at);
    return issued;
  }

  /**
   * The operator's registration (`slipway clients create [--first-party]`; test servers): the same
   * fields, and `first_party`. Only the system principal may use it (403 otherwise); its account must
   * exist (422 on `account_id`).
   */
  async registerAsOperator(principal: Principal, input: OperatorClientInput): Promise<IssuedClient> {
    authorize(principal, 'create_as_operator', 'oauth_client');
    if (!(await this.deps.accounts.findById(principal.accountId))) throw validationFailed([{ field: 'account_id', message: 'no such account' }]);
    const clientId = newId('oauthClient');
    return await this.deps.quotas.withSlot(principal, 'oauth_clients', clientId, () => this.#insert(principal.accountId, input, input.first_party ?? false, clientId));
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
      updated_at: now };
    await this.deps.oauthClients.insert(client);
    this.deps.changes.emit('oauthClientsChanged');
    return { client, clientSecret };
  }

  protected readonly records = new AccountRecords(this.deps.oauthClients, 'oauth_client');

  /**
   * A new secret for a confidential client, returned once; the old one stops working at once (the
   * provider reads clients from the database on every request). Public clients have no secret: 409
   * `conflict`.
   */
  async rotateSecret(principal: Principal, clientId: string): Promise<{ client: OAuthClientDoc; clientSecret: string }> {
    authorize(principal, 'rotate_secret', 'oauth_client');
    const clientSecret = newClientSecret();
    const now = new Date();
    const client = await this.deps.oauthClients.replaceSecretHash(principal.accountId, clientId, hashClientSecret(clientSecret), now);
    if (!client) {
      await this.get(principal, clientId);
      throw conflict('A public client has no secret to rotate.');
    }
    await this.deps.eventLog.record('oauth_client.secret_rotated', principal, client, eventData(client), now);
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
    const deps = this.deps;
    const client = await deps.oauthClients.delete(principal.accountId, clientId);
    if (!client) throw notFound('oauth_client');
    await deps.quotas.release('oauth_clients', client._id);
    // Every access token of the client (user and client_credentials) is refused from the next request on
    // this instance, and within revocationRefreshSeconds on the others.
    await deps.revokedGrants.add(revokedClientKey(client._id));
    deps.changes.emit('oauthClientsChanged');
    const grantIds = [...(await deps.consents.grantIdsForClient(client._id)), ...(await deps.oidcArtifacts.grantIdsForClient(client._id))];
    const revokedGrants = await deps.grants.revoke(grantIds);
    await deps.consents.deleteForClient(client._id);
    await deps.eventLog.record('oauth_client.deleted', principal, client, { ...eventData(client), revoked_grants: revokedGrants });
    return { client, revokedGrants };
  }
}
