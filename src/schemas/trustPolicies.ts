import { z } from 'zod';
import { actorRef } from './actor.ts';
import { pageOf } from './page.ts';
import { documentedPattern, HTTP_URL_PATTERN, trimmedText } from './rules.ts';
import { Environment } from './deployments.ts';
import { ProjectId, Timestamp } from './projects.ts';

export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 3600;
export const DEFAULT_TTL_SECONDS = 900;
/** How many claims one policy may require, and how long a name or value may be. */
const MAX_CLAIMS = 20;
const MAX_CLAIM_LENGTH = 256;
const MAX_ISSUER_LENGTH = 512;

export const TrustPolicyId = z
  .string()
  .regex(/^tp_[0-9a-hjkmnp-tv-z]{26}$/)
  .meta({ description: 'Trust policy id.', example: 'tp_01jd8x3k9q7m2v4t6r8w0y1z3b' });

export const TrustPolicyParams = z.object({ project_id: ProjectId, trust_policy_id: TrustPolicyId });
export type TrustPolicyParams = z.output<typeof TrustPolicyParams>;

/** Why an issuer URL is refused before any address is looked at; undefined when its shape is fine. */
export function issuerProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) return 'must have neither query nor fragment';
  return undefined;
}

const Issuer = z
  .string()
  .max(MAX_ISSUER_LENGTH)
  .regex(HTTP_URL_PATTERN, 'must be an absolute URL')
  .meta(documentedPattern(HTTP_URL_PATTERN))
  .superRefine((value, ctx) => {
    // One problem per value: the documented pattern's refusal already said what is wrong.
    const problem = HTTP_URL_PATTERN.test(value) ? issuerProblem(value) : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'The CI provider\'s OpenID Connect issuer, exactly as its tokens\' `iss` says it (`https` only; plain `http` only on loopback, when the deployment allows it for development). Its keys are read from `{issuer}/.well-known/openid-configuration`.',
    example: 'https://token.actions.githubusercontent.com',
  });

const ClaimValue = z.string().min(1).max(MAX_CLAIM_LENGTH);
const Claims = z
  .record(z.string().min(1).max(MAX_CLAIM_LENGTH), ClaimValue)
  .refine((claims) => Object.keys(claims).length <= MAX_CLAIMS, `at most ${MAX_CLAIMS} claims`)
  .refine((claims) => Object.keys(claims).some((name) => name !== 'iss' && name !== 'aud'), 'must name at least one claim besides iss and aud')
  .meta({
    description:
      'Claim name → the exact string value the token must carry. Matched by equality only: `*` or any other character is just that character. At least one claim besides `iss` and `aud`.',
    example: { repository_id: '123456789', repository_owner_id: '987654', ref: 'refs/heads/main' },
  });

const ScopeName = z.enum(['read', 'write']);

export const CreateTrustPolicyBody = z
  .object({
    name: trimmedText(100, { controlCharacters: true }).meta({ description: 'What the policy is for, 1–100 characters after trimming.', example: 'GitHub Actions: deploy from main' }),
    issuer: Issuer,
    audience: z.string().min(1).max(MAX_ISSUER_LENGTH).optional().meta({ description: 'What the token\'s `aud` must hold. Default: this server\'s base URL.', example: 'https://slipway.example.com' }),
    claims: Claims,
    scopes: z.array(ScopeName).min(1).max(2).meta({ description: 'The exchanged token\'s scopes (`write` includes `read`).', example: ['read', 'write'] }),
    environments: z
      .array(Environment)
      .min(1)
      .max(50)
      .nullable()
      .optional()
      .meta({ description: 'The environments the exchanged token may deploy to; `null` or absent: all.', example: ['staging', 'production'] }),
    max_ttl_seconds: z
      .number()
      .int()
      .min(MIN_TTL_SECONDS)
      .max(MAX_TTL_SECONDS)
      .optional()
      .default(DEFAULT_TTL_SECONDS)
      .meta({ description: `How long an exchanged token lives, ${MIN_TTL_SECONDS}–${MAX_TTL_SECONDS} s (default ${DEFAULT_TTL_SECONDS}).`, example: 900 }),
  })
  .strict()
  .meta({ id: 'CreateTrustPolicy' });
export type CreateTrustPolicyBody = z.output<typeof CreateTrustPolicyBody>;

export const TrustPolicy = z
  .object({
    id: TrustPolicyId,
    project_id: ProjectId,
    name: z.string(),
    issuer: z.string(),
    audience: z.string(),
    claims: z.record(z.string(), z.string()),
    scopes: z.array(ScopeName),
    environments: z.array(z.string()).nullable(),
    max_ttl_seconds: z.number().int(),
    created_at: Timestamp,
    created_by: actorRef(),
  })
  .meta({ id: 'TrustPolicy', description: 'Which CI tokens may be exchanged for a token acting as the project (docs: "CI without stored secrets").' });
export type TrustPolicy = z.output<typeof TrustPolicy>;

export const TrustPolicyList = pageOf(TrustPolicy, 'TrustPolicyList');
