import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import type { HeaderObject, OpenAPIObject, ResponseObject } from 'openapi3-ts/oas31';
import { z } from 'zod';
import { SCOPE_ORDER } from '../domain/principal.ts';
import type { Config } from '../config/index.ts';
import { ERROR_CODES, type ErrorCode } from '../errors.ts';

// Gives every zod schema `.openapi()`, which the registry uses to name components.
extendZodWithOpenApi(z);

/** The error body of every /v1 failure (docs/product.md §6). */
export const ErrorBody = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]).meta({ description: 'Stable machine-readable code.' }),
      message: z.string().meta({ description: 'Human-readable description; may change.' }),
      status: z.number().int().meta({ description: 'The HTTP status of the response.' }),
      request_id: z.string().meta({ description: 'Same as the X-Request-Id response header.' }),
      details: z
        .array(z.strictObject({ field: z.string(), message: z.string() }))
        .optional()
        .meta({ description: 'Per-field problems (validation_failed, invalid_request).' }),
    }),
  })
  .meta({ id: 'Error' });


const header = (description: string, schema: HeaderObject['schema'] = { type: 'string' }): HeaderObject => ({ description, schema });

/** Headers on every /v1 response. */
export const COMMON_RESPONSE_HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': header('Identifies this request in logs and error bodies.'),
  'RateLimit-Limit': header('Requests allowed per hour for this credential.', { type: 'integer' }),
  'RateLimit-Remaining': header('Requests left in the current window.', { type: 'integer' }),
  'RateLimit-Reset': header('Seconds until the window resets.', { type: 'integer' }),
};

const ERROR_HEADERS: Partial<Record<ErrorCode, Record<string, HeaderObject>>> = {
  unauthorized: { 'WWW-Authenticate': header('`Bearer realm="slipway"` (RFC 6750 §3).') },
  invalid_token: { 'WWW-Authenticate': header('`Bearer realm="slipway", error="invalid_token", ...`') },
  insufficient_scope: { 'WWW-Authenticate': header('`Bearer realm="slipway", error="insufficient_scope", scope="<needed>"`') },
  method_not_allowed: { Allow: header('The methods this path supports.') },
  rate_limited: { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer' }) },
  service_unavailable: { 'Retry-After': header('Seconds to wait before retrying.', { type: 'integer' }) },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing or unusable credential',
  403: 'Not allowed',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request not received in time',
  409: 'Conflicts with the current state',
  413: 'Body too large',
  415: 'Body is not JSON',
  422: 'Request not acceptable',
  429: 'Rate limited',
  431: 'Request headers too large',
  500: 'Internal error',
  503: 'Database unreachable',
};

/** One response per status, with an example body for each error code the operation can produce. */
export function errorResponses(codes: Iterable<ErrorCode>): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, ResponseObject> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples = Object.fromEntries(
      list.map((code) => [
        code,
        {
          summary: code,
          value: {
            error: {
              code,
              message: ERROR_CODES[code].example,
              status,
              request_id: '6f1c2a52-3f1e-4d7a-9c55-0c1d0b6c9e11',
              ...(code === 'validation_failed' ? { details: [{ field: 'name', message: 'Too big: expected string to have <=100 characters' }] } : {}),
            },
          },
        },
      ]),
    );
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${list.map((c) => `\`${c}\``).join(', ')}`,
      headers: { ...COMMON_RESPONSE_HEADERS, ...Object.assign({}, ...list.map((c) => ERROR_HEADERS[c] ?? {})) },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples } },
    };
  }
  return out;
}

/** A registry with the shared components: error body, security schemes. */
export function createApiRegistry(config: Config): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.register('Error', ErrorBody);
  registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description:
      `OAuth 2.0 access token (JWT, RFC 9068) for a user (authorization code + PKCE; for the CLI \`slipway-cli\`, the device authorization grant of RFC 8628 at \`${config.issuer}/device/auth\`) or a confidential client (client credentials). A token bound to a DPoP key (RFC 9449, \`cnf.jkt\`) is sent as \`Authorization: DPoP <token>\` with a fresh proof in the \`DPoP\` header (see /docs#oauth-dpop); as Bearer it is refused.`,
    flows: {
      authorizationCode: {
        authorizationUrl: `${config.issuer}/authorize`,
        tokenUrl: `${config.issuer}/token`,
        refreshUrl: `${config.issuer}/token`,
        scopes: { read: 'Read everything in the account', write: 'Create and change projects, deployments, configurations', admin: 'Delete projects; manage users, keys, clients' },
      },
      clientCredentials: {
        tokenUrl: `${config.issuer}/token`,
        scopes: { read: 'Read', write: 'Write', admin: 'Admin' },
      },
    },
  });
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'Any /v1 credential in `Authorization: Bearer <token>`: an OAuth access token, an API key (`slw_…`) or a dashboard session token (`slws_…`). Never in the query string.',
  });
  return registry;
}

export function generateDocument(registry: OpenAPIRegistry, config: Config): OpenAPIObject {
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Slipway API',
      version: '1.0.0',
      description: [
        'Projects, deployments, configurations and users of a Slipway account.',
        '',
        `Scopes are nested: ${SCOPE_ORDER.join(' ⊂ ')}. A user's credential may do what both its scope and the user's role allow.`,
        'Lists take `page` (≥ 1) and `per_page` (1–100, default 20) and answer `{data, pagination}` with an RFC 8288 `Link` header.',
        'Bodies are `application/json`, at most 100 KiB. Every response carries `X-Request-Id` and `RateLimit-*` headers.',
        'A method a path does not list here answers 405 `method_not_allowed` with `Allow` naming the methods it does list (plus HEAD where GET is); OPTIONS answers 204 with the same `Allow`.',
        'Before a request reaches a route: headers over 16 KiB → 431 `headers_too_large`; a request not received in time → 408 `request_timeout`; an `Authorization`, `Content-Type` or `Idempotency-Key` header sent twice, or a JSON body that is not valid UTF-8 or holds a lone surrogate → 400 `invalid_request`.',
      ].join('\n'),
    },
    servers: [{ url: config.publicUrl }],
  });
}
