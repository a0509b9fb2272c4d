import { z } from 'zod';
import { pageOf, PageQuery } from './page.ts';
import { atLeastOneField } from './rules.ts';
import { Environment } from './deployments.ts';
import { ProjectId, Timestamp } from './projects.ts';

export const MAX_VALUE_BYTES = 32 * 1024;

export const ConfigurationKey = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,255}$/, 'must be 1-256 letters, digits or underscores, not starting with a digit');

export const ConfigurationId = z
  .string()
  .regex(/^cfg_[0-9a-hjkmnp-tv-z]{26}$/)
  .meta({ description: 'Configuration id.', example: 'cfg_01jd8y2b6n4q8s0v2x4z6a8c0e' });

export const ConfigurationParams = z.object({ project_id: ProjectId, configuration_id: ConfigurationId });
export type ConfigurationParams = z.output<typeof ConfigurationParams>;

const Key = ConfigurationKey.meta({
  description: 'Variable name: letters, digits and `_`, not starting with a digit, at most 256 characters. Unique per project and environment.',
  example: 'DATABASE_URL',
  maxLength: 256,
});

// Characters first (the JSON Schema keyword), then UTF-8 bytes, which the keyword cannot say.
const Value = z
  .string()
  .max(MAX_VALUE_BYTES, { message: 'must be at most 32 KiB', abort: true })
  .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_VALUE_BYTES, 'must be at most 32 KiB (UTF-8)')
  .meta({ description: 'The value, at most 32 KiB (UTF-8).', example: 'postgres://app@db.internal:5432/app', maxLength: MAX_VALUE_BYTES });

const Secret = z.boolean().meta({
  description: 'Secret values are encrypted at rest (AES-256-GCM) and returned as `null` unless revealed. A secret cannot be made non-secret.',
  example: true,
});

export const CreateConfigurationBody = z
  .object({
    environment: Environment,
    key: Key,
    value: Value,
    secret: Secret.optional().default(false),
  })
  .strict()
  .meta({ id: 'CreateConfiguration' });
export type CreateConfigurationBody = z.output<typeof CreateConfigurationBody>;

export const UpdateConfigurationBody = atLeastOneField(
  z
    .object({
      value: Value.optional(),
      secret: Secret.optional(),
    })
    .strict(),
).meta({
    id: 'UpdateConfiguration',
    description: '`key` and `environment` are fixed. `{"secret": true}` encrypts the current value; `{"secret": false}` on a secret is refused.',
  });
export type UpdateConfigurationBody = z.output<typeof UpdateConfigurationBody>;

/** `?reveal=true`: secret values in plaintext (admin only). */
const Reveal = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => v === 'true')
  .meta({ description: '`true` returns secret values in plaintext; needs the admin scope (and, for a user, the admin or owner role).', param: { schema: { type: 'boolean', default: false } } });

export const ListConfigurationsQuery = PageQuery.extend({ environment: Environment.optional(), reveal: Reveal });
export type ListConfigurationsQuery = z.output<typeof ListConfigurationsQuery>;

export const GetConfigurationQuery = z.strictObject({ reveal: Reveal });
export type GetConfigurationQuery = z.output<typeof GetConfigurationQuery>;

export const Configuration = z
  .object({
    id: ConfigurationId,
    project_id: ProjectId,
    environment: z.string().meta({ example: 'production' }),
    key: z.string().meta({ example: 'DATABASE_URL' }),
    value: z.string().nullable().meta({ description: 'The value; `null` for a secret unless revealed.', example: null }),
    secret: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Configuration' });
export type Configuration = z.output<typeof Configuration>;

export const ConfigurationList = pageOf(Configuration, 'ConfigurationList');
