import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Changes } from '../lib/changes.ts';
import { conflict, notFound, validationFailed } from '../errors.ts';
import type { AccountRepository } from '../repositories/accounts.ts';
import type { ConsentRepository } from '../repositories/consents.ts';
import type { EventRepository } from '../repositories/events.ts';
import type { ClientGrantType, OAuthClientDoc, OAuthClientRepository } from '../repositories/oauthClients.ts';
import type { PageRequest, PageResult } from '../domain/page.ts';
import { revokedClientKey } from '../repositories/revokedGrants.ts';
import { createOnce } from './createOnce.ts';
import { recordEvent, type ServiceContext } from './events.ts';
import { revokeGrants, type GrantRevocationDeps } from './grantRevocation.ts';
import { zodDetails } from '../schemas/parse.ts';
import { sha256Hex } from '../lib/hash.ts';
import { redirectUriProblem } from '../schemas/oauthClients.ts';
import { SCOPE_ORDER } from '../domain/principal.ts';




export const CreateClientInput = z
  .object({
    account_id: z.string().min(1),
    client_name: z.string().trim().min(1).max(100),
    redirect_uris: z
      .array(
        z.string().superRefine((v, ctx) => {
          const problem = redirectUriProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
      )
      .max(20)
      .default([]),
    token_endpoint_auth_method: z.enum(['none', 'client_secret_basic']).default('none'),
    grant_types: z
      .array(z.enum(['authorization_code', 'refresh_token', 'client_credentials']))
      .min(1)
      .default(['authorization_code', 'refresh_token']),
    scope: z
      .string()
      .trim()
      .default('read write admin')
      .refine((s) => s.split(/\s+/).every((v) => (SCOPE_ORDER as readonly string[]).includes(v)), 'scopes must be read, write or admin'),
    first_party: z.boolean().default(false),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.grant_types.includes('authorization_code') && v.redirect_uris.length === 0)
      ctx.addIssue({ code: 'custom', path: ['redirect_uris'], message: 'at least one redirect URI is needed for authorization_code' });
    if (v.grant_types.includes('client_credentials') && v.token_endpoint_auth_method === 'none')
      ctx.addIssue({ code: 'custom', path: ['grant_types'], message: 'client_credentials needs a confidential client' });
    if (v.grant_types.includes('refresh_token') && !v.grant_types.includes('authorization_code'))
      ctx.addIssue({ code: 'custom', path: ['grant_types'], message: 'refresh_token goes with authorization_code' });
  });
export type CreateClientInput = z.input<typeof CreateClientInput>;

export const hashClientSecret = sha256Hex;
/** `cli_` + 20 base62 characters (about 119 bits). */
export const newClientId = () => `cli_${randomBytes(16).toString('base64url').replace(/[-_]/g, '').slice(0, 20)}`;

const newClientSecret = () => `slwcs_${randomBytes(32).toString('base64url')}`;

export async function createClient(
  repos: { oauthClients: OAuthClientRepository; accounts: AccountRepository; changes: Changes },
  input: CreateClientInput,
  reservedId?: string,
): Promise<{ client: OAuthClientDoc; clientSecret: string | null }> {
  const parsed = CreateClientInput.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  const data = parsed.data;
  if (!(await repos.accounts.findById(data.account_id))) throw validationFailed([{ field: 'account_id', message: 'no such account' }]);
  const confidential = data.token_endpoint_auth_method === 'client_secret_basic';
  const clientSecret = confidential ? newClientSecret() : null;
  const now = new Date();
  const client: OAuthClientDoc = {
    _id: reservedId ?? newClientId(),
    account_id: data.account_id,
    client_name: data.client_name,
    redirect_uris: [...new Set(data.redirect_uris)],
    token_endpoint_auth_method: data.token_endpoint_auth_method,
    grant_types: [...new Set(data.grant_types)] as ClientGrantType[],
    scope: [...new Set(data.scope.split(/\s+/))].join(' '),
    first_party: data.first_party,
    client_secret_hash: clientSecret ? hashClientSecret(clientSecret) : null,
    created_at: now,
    updated_at: now,
  };
  await repos.oauthClients.insert(client);
  repos.changes.emit('oauthClientsChanged');
  return { client, clientSecret };
}

export function presentClient(doc: OAuthClientDoc) {
  return {
    client_id: doc._id,
    client_name: doc.client_name,
    redirect_uris: doc.redirect_uris,
    token_endpoint_auth_method: doc.token_endpoint_auth_method,
    grant_types: doc.grant_types,
    scope: doc.scope,
    first_party: doc.first_party,
    account_id: doc.account_id,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Client management for an account (/v1/oauth_clients).

export interface ClientAdminDeps extends GrantRevocationDeps {
  /** Tells what is derived from the set of clients (the CORS origins) to reload. */
  changes: Changes;
  oauthClients: OAuthClientRepository;
  accounts: AccountRepository;
  consents: ConsentRepository;
  events: EventRepository;
}

/** The registration body: the RFC 7591 names; the account is always the actor's. */
export type RegisterClientInput = Omit<CreateClientInput, 'account_id'>;

/** Registers a (third-party) client in the actor's account; the secret (confidential clients) is returned once. */
export async function registerClient(
  deps: Pick<ClientAdminDeps, 'oauthClients' | 'accounts' | 'events' | 'changes'>,
  ctx: ServiceContext,
  input: RegisterClientInput,
  reservedId?: string,
): Promise<{ client: OAuthClientDoc; clientSecret: string | null }> {
  if (input && typeof input === 'object' && Object.hasOwn(input, 'account_id'))
    throw validationFailed([{ field: 'account_id', message: 'Unrecognized key: "account_id"' }]);
  // Skipping consent is a trust decision about the operator's own apps: an account admin could otherwise
  // register a "first-party" client and obtain tokens for users of other accounts without asking them.
  if (input && typeof input === 'object' && (input as { first_party?: unknown }).first_party === true)
    throw validationFailed([{ field: 'first_party', message: 'only the operator can register a first-party client (slipway clients create --first-party)' }]);
  // An earlier run of the same request (Idempotency-Key) registered it already: that client is the
  // answer, without its secret (shown once; rotate it for a new one).
  const { doc } = await createOnce(
    reservedId,
    async (existing) => {
      const client = await deps.oauthClients.findInAccount(ctx.accountId, existing);
      return client ? { client, clientSecret: null } : null;
    },
    () => registerNewClient(deps, ctx, input, reservedId),
  );
  return doc;
}

async function registerNewClient(
  deps: Pick<ClientAdminDeps, 'oauthClients' | 'accounts' | 'events' | 'changes'>,
  ctx: ServiceContext,
  input: RegisterClientInput,
  reservedId: string | undefined,
): Promise<{ client: OAuthClientDoc; clientSecret: string | null }> {
  const result = await createClient(deps, { ...input, account_id: ctx.accountId }, reservedId);
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'oauth_client.created',
    actor: ctx.actor,
    data: {
      client_id: result.client._id,
      client_name: result.client.client_name,
      token_endpoint_auth_method: result.client.token_endpoint_auth_method,
      grant_types: result.client.grant_types,
    },
    at: result.client.created_at,
  });
  return result;
}

export async function listClients(deps: Pick<ClientAdminDeps, 'oauthClients'>, accountId: string, page: PageRequest): Promise<PageResult<OAuthClientDoc>> {
  return await deps.oauthClients.page(accountId, page);
}

export async function getClient(deps: Pick<ClientAdminDeps, 'oauthClients'>, accountId: string, clientId: string): Promise<OAuthClientDoc> {
  const client = await deps.oauthClients.findInAccount(accountId, clientId);
  if (!client) throw notFound('No such OAuth client.');
  return client;
}

/**
 * A new secret for a confidential client, returned once; the old one stops working at once (the
 * provider reads clients from the database on every request). Public clients have no secret: 409
 * `conflict`.
 */
export async function rotateClientSecret(
  deps: Pick<ClientAdminDeps, 'oauthClients' | 'events'>,
  ctx: ServiceContext,
  clientId: string,
): Promise<{ client: OAuthClientDoc; clientSecret: string }> {
  const clientSecret = newClientSecret();
  const now = new Date();
  const client = await deps.oauthClients.replaceSecretHash(ctx.accountId, clientId, hashClientSecret(clientSecret), now);
  if (!client) {
    await getClient(deps, ctx.accountId, clientId);
    throw conflict('A public client has no secret to rotate.');
  }
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'oauth_client.secret_rotated',
    actor: ctx.actor,
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
export async function deleteClient(deps: ClientAdminDeps, ctx: ServiceContext, clientId: string): Promise<{ client: OAuthClientDoc; revokedGrants: number }> {
  const client = await deps.oauthClients.delete(ctx.accountId, clientId);
  if (!client) throw notFound('No such OAuth client.');
  // Every access token of the client (user and client_credentials) is refused from the next request on
  // this instance, and within revocationRefreshSeconds on the others.
  await deps.revokedGrants.add(revokedClientKey(client._id));
  deps.changes.emit('oauthClientsChanged');
  const grantIds = [...(await deps.consents.grantIdsForClient(client._id)), ...(await deps.oidcArtifacts.grantIdsForClient(client._id))];
  const revokedGrants = await revokeGrants(deps, grantIds);
  await deps.consents.deleteForClient(client._id);
  await recordEvent(deps, {
    accountId: ctx.accountId,
    type: 'oauth_client.deleted',
    actor: ctx.actor,
    data: { client_id: client._id, client_name: client.client_name, revoked_grants: revokedGrants },
  });
  return { client, revokedGrants };
}
