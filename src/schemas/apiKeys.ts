import { z } from 'zod';
import { actorRef } from './actor.ts';
import { trimmedText } from './rules.ts';
import { pageOf, PageQuery } from './page.ts';
import { ProjectId, Timestamp } from './projects.ts';

export const MAX_GRACE_PERIOD_SECONDS = 604_800;

export const ApiKeyId = z
  .string()
  .regex(/^key_[0-9a-hjkmnp-tv-z]{26}$/)
  .meta({ description: 'API key id (stays the same across rotations).', example: 'key_01jd8z4c8p6r0t2v4x6z8b0d2f' });

export const ApiKeyParams = z.object({ project_id: ProjectId, api_key_id: ApiKeyId });
export type ApiKeyParams = z.output<typeof ApiKeyParams>;

const ScopeName = z.enum(['read', 'write', 'admin']);

export const CreateApiKeyBody = z
  .object({
    name: trimmedText(100, { controlCharacters: true }).meta({ description: 'What the key is for, 1–100 characters after trimming.', example: 'GitHub Actions deploy' }),
    scopes: z
      .array(ScopeName)
      .min(1)
      .max(3)
      .meta({ description: 'Scopes nest (`write` includes `read`, `admin` includes both).', example: ['read', 'write'] }),
    expires_at: z.iso
      .datetime({ offset: true, abort: true })
      .refine((v) => Date.parse(v) > Date.now(), 'must be in the future')
      .nullable()
      .optional()
      .meta({ description: 'When the key stops working (ISO 8601, in the future); `null` or absent: never.', example: '2027-01-01T00:00:00.000Z' }),
  })
  .strict()
  .meta({ id: 'CreateApiKey' });
export type CreateApiKeyBody = z.output<typeof CreateApiKeyBody>;

export const RotateApiKeyBody = z
  .object({
    grace_period_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_PERIOD_SECONDS)
      .optional()
      .default(0)
      .meta({ description: `How long the previous secret keeps working, 0–${MAX_GRACE_PERIOD_SECONDS} s (7 days). 0: it stops at once.`, example: 3600 }),
  })
  .strict()
  .meta({ id: 'RotateApiKey' });
export type RotateApiKeyBody = z.output<typeof RotateApiKeyBody>;

export const ListApiKeysQuery = PageQuery.extend({
  status: z.enum(['active', 'revoked']).optional().meta({ description: 'Only active or only revoked keys (an expired key is `active` here).' }),
});
export type ListApiKeysQuery = z.output<typeof ListApiKeysQuery>;

export const ApiKey = z
  .object({
    id: ApiKeyId,
    name: z.string().meta({ example: 'GitHub Actions deploy' }),
    project_id: ProjectId,
    scopes: z.array(ScopeName).meta({ example: ['read', 'write'] }),
    prefix: z.string().meta({ description: 'First 8 characters of the current secret.', example: 'slw_7Gq2' }),
    last_four: z.string().meta({ description: 'Last 4 characters of the current secret.', example: 'x9Qa' }),
    status: z.enum(['active', 'revoked', 'expired']),
    created_at: Timestamp,
    updated_at: Timestamp,
    created_by: actorRef().meta({ example: { type: 'user', id: 'usr_01jd8x0a2b4c6d8e0f2g4h6j8k' } }),
    last_used_at: Timestamp.nullable().meta({ description: 'Last successful authentication, to the minute.' }),
    expires_at: Timestamp.nullable(),
    rotated_at: Timestamp.nullable(),
  })
  .meta({ id: 'ApiKey', description: 'The secret itself is never part of this object.' });
export type ApiKey = z.output<typeof ApiKey>;

export const IssuedApiKey = ApiKey.extend({
  key: z.string().nullable().meta({
    description:
      'The secret: `slw_` + 32 base62 characters + a 6-character checksum. Shown in this response only; store it now. `null` only in an `Idempotency-Key` replay (the secret is never shown twice).',
    example: 'slw_7Gq2Vx0pLk3RtY8mNc4BwE6uHs1ZaJ9f0x9QaB',
  }),
}).meta({ id: 'IssuedApiKey' });
export type IssuedApiKey = z.output<typeof IssuedApiKey>;

export const ApiKeyList = pageOf(ApiKey, 'ApiKeyList');
