import { z } from 'zod';
import { pageOf, PageQuery } from './page.ts';
import { documentedPattern, REDIRECT_URI_PATTERN, SCOPE_LIST_PATTERN, trimmedText } from './rules.ts';
import { Timestamp } from './projects.ts';
import type { ClientGrantType } from '../repositories/oauthClients.ts';
import { containsLookalike } from '../lib/lookalike.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Redirect URIs: https anywhere; http only to a loopback host (native apps, RFC 8252 §7.3); or a
 * private-use scheme in reverse-domain form (RFC 8252 §7.1). No fragments, no wildcards.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.hash || uri.includes('#')) return 'must not contain a fragment';
  if (uri.includes('*')) return 'must not contain wildcards';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? undefined : 'http is allowed only for loopback hosts';
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return undefined;
  return 'must be https, http on loopback, or a private-use scheme like com.example.app:/callback';
}

/** What an absent field of a new client means (each field's description says it too). */
export const CLIENT_DEFAULTS = {
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'read write admin',
} as const satisfies { token_endpoint_auth_method: string; grant_types: readonly ClientGrantType[]; scope: string };

const hasGrant = (grant: ClientGrantType) => ({ required: ['grant_types'], properties: { grant_types: { contains: { const: grant } } } });
const needsRedirectUris = { required: ['redirect_uris'], properties: { redirect_uris: { minItems: 1 } } };

/**
 * The rules between fields of a new client, as JSON Schema for the API's document; `clientFieldRules`
 * below is the same list as code. Without `grant_types`, the default is authorization_code +
 * refresh_token.
 */
export const CLIENT_FIELD_RULES = [
  { if: { not: { required: ['grant_types'] } }, then: needsRedirectUris },
  { if: hasGrant('authorization_code'), then: needsRedirectUris },
  { if: hasGrant('client_credentials'), then: { required: ['token_endpoint_auth_method'], properties: { token_endpoint_auth_method: { const: 'client_secret_basic' } } } },
  { if: hasGrant('refresh_token'), then: hasGrant('authorization_code') },
];

interface ClientFields {
  redirect_uris?: string[] | undefined;
  token_endpoint_auth_method?: 'none' | 'client_secret_basic' | undefined;
  grant_types?: ClientGrantType[] | undefined;
}

/** CLIENT_FIELD_RULES as checks (run once every field is valid on its own). */
function clientFieldRules(v: ClientFields, ctx: z.RefinementCtx): void {
  const grants: readonly ClientGrantType[] = v.grant_types ?? CLIENT_DEFAULTS.grant_types;
  const method = v.token_endpoint_auth_method ?? CLIENT_DEFAULTS.token_endpoint_auth_method;
  if (grants.includes('authorization_code') && !v.redirect_uris?.length)
    ctx.addIssue({ code: 'custom', path: ['redirect_uris'], message: 'at least one redirect URI is needed for authorization_code' });
  if (grants.includes('client_credentials') && method === 'none') ctx.addIssue({ code: 'custom', path: ['grant_types'], message: 'client_credentials needs a confidential client' });
  if (grants.includes('refresh_token') && !grants.includes('authorization_code'))
    ctx.addIssue({ code: 'custom', path: ['grant_types'], message: 'refresh_token goes with authorization_code' });
}

/** The product's own name, which no registered client may carry or imitate (the operator's may). */
export const PRODUCT_NAME = 'Slipway';

/** A client name that names or imitates the product would pass for a first-party app on the consent page. */
function notTheProduct(v: { client_name: string }, ctx: z.RefinementCtx): void {
  if (containsLookalike(v.client_name, PRODUCT_NAME))
    ctx.addIssue({ code: 'custom', path: ['client_name'], message: `must not contain "${PRODUCT_NAME}" or a look-alike of it: the name would pass for one of our own apps` });
}

const fieldsValid = (payload: { issues: readonly unknown[] }) => payload.issues.length === 0;

export const ClientId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/)
  .meta({ description: 'The OAuth `client_id`.', example: 'cli_4fQm9TzR2xWb7LkP0sNa' });

export const ClientParams = z.object({ client_id: ClientId });
export type ClientParams = z.output<typeof ClientParams>;

const AuthMethod = z.enum(['none', 'client_secret_basic']).meta({
  description: '`none`: a public client (SPA, mobile or desktop app; PKCE only). `client_secret_basic`: a confidential client, which gets a `client_secret`.',
  example: 'none',
});
const GrantType = z.enum(['authorization_code', 'refresh_token', 'client_credentials']);

const RedirectUri = z
  .string()
  .max(2048)
  .regex(REDIRECT_URI_PATTERN, { error: (issue) => redirectUriProblem(String(issue.input)) ?? 'must be https, http on loopback, or a private-use scheme like com.example.app:/callback, with no user name, fragment or wildcard' })
  .meta({
    ...documentedPattern(REDIRECT_URI_PATTERN),
    description:
      'Matched exactly. https; http only to a loopback host (any port, RFC 8252); or a private-use scheme such as `com.example.app:/callback`. No fragment, wildcard, user name or password; non-ASCII percent-encoded.',
  });

/**
 * RFC 7591 client metadata names. `first_party` (skips the consent page) is the operator's to grant
 * (`slipway clients create --first-party`): through /v1 it may only be absent or false.
 */
export const RegisterClientBody = z
  .object({
    client_name: trimmedText(100, { controlCharacters: true }).meta({
      description:
        '1–100 characters after trimming. Shown on the consent page, so it may not contain "Slipway" (in any case, spacing, punctuation or look-alike letters) nor equal the name of one of our own apps.',
      example: 'Release dashboard',
    }),
    redirect_uris: z
      .array(RedirectUri)
      .max(20)
      .optional()
      .meta({ description: 'Required for `authorization_code`.', example: ['https://release.example.com/oauth/callback'] }),
    token_endpoint_auth_method: AuthMethod.optional().meta({ description: 'Default `none` (public).', example: 'client_secret_basic' }),
    grant_types: z
      .array(GrantType)
      .min(1)
      .optional()
      .meta({ description: 'Default `["authorization_code", "refresh_token"]`. `client_credentials` needs a confidential client.', example: ['authorization_code', 'refresh_token'] }),
    scope: z
      .string()
      .max(100)
      .regex(SCOPE_LIST_PATTERN, 'scopes must be read, write or admin')
      .meta(documentedPattern(SCOPE_LIST_PATTERN))
      .optional()
      .meta({ description: 'Space-separated scopes the client may ask for (`read`, `write`, `admin`); default `read write admin`.', example: 'read write' }),
    dpop_bound_access_tokens: z.boolean().optional().meta({
      description:
        'RFC 9449 §5.2. Default false. When true, every token request must carry a DPoP proof, so every access token (and a public client\'s refresh token) is bound to the app\'s key and useful only with proofs of that key.',
      example: false,
    }),
    require_pushed_authorization_requests: z.boolean().optional().meta({
      description:
        'RFC 9126 §6. Default false. When true, `/oauth/authorize` accepts only a `request_uri` from a pushed authorization request (`POST /oauth/request`), never the parameters in the URL.',
      example: false,
    }),
    first_party: z
      .literal(false, { error: 'only the operator can register a first-party client (slipway clients create --first-party)' })
      .optional()
      .meta({ description: 'Always false here: first-party clients (no consent page) are registered by the operator with the CLI.' }),
  })
  .strict()
  .superRefine(clientFieldRules, { when: fieldsValid })
  .superRefine(notTheProduct, { when: fieldsValid })
  .meta({ id: 'RegisterOAuthClient', allOf: CLIENT_FIELD_RULES });
export type RegisterClientBody = z.output<typeof RegisterClientBody>;

/**
 * The operator's registration (`slipway clients create`): the registration body's fields and rules,
 * where `first_party` may be true. Never a route's body; the account is the operator principal's.
 * zod refuses to `.extend` a refined object over one of its keys, so the body's shape is extended and
 * the same rules applied.
 */
export const OperatorClientInput = z
  .object({ ...RegisterClientBody.shape, first_party: z.boolean().optional() })
  .strict()
  .superRefine(clientFieldRules, { when: fieldsValid });
export type OperatorClientInput = z.output<typeof OperatorClientInput>;

export const ListClientsQuery = PageQuery;
export type ListClientsQuery = z.output<typeof ListClientsQuery>;

export const OAuthClient = z
  .object({
    client_id: ClientId,
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    token_endpoint_auth_method: AuthMethod,
    grant_types: z.array(GrantType),
    scope: z.string().meta({ example: 'read write' }),
    first_party: z.boolean(),
    dpop_bound_access_tokens: z.boolean().meta({ description: 'Token requests must carry a DPoP proof (RFC 9449 §5.2).' }),
    require_pushed_authorization_requests: z.boolean().meta({ description: 'Authorization requests must be pushed first (RFC 9126 §6).' }),
    account_id: z.string().meta({ example: 'acct_01jd8x0a2b4c6d8e0f2g4h6j8m' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'OAuthClient' });
export type OAuthClient = z.output<typeof OAuthClient>;

const ClientSecret = z.string().nullable().meta({
  description: 'Shown in this response only (Slipway keeps a hash). `null` for a public client, and in an `Idempotency-Key` replay.',
  example: 'slwcs_Vb1q3ZrT7yNw0cXe5LmA9sDf2GhJ4kP6oQ8uRtY1zI',
});

export const RegisteredClient = OAuthClient.extend({ client_secret: ClientSecret }).meta({ id: 'RegisteredOAuthClient' });

export const OAuthClientList = pageOf(OAuthClient, 'OAuthClientList');
