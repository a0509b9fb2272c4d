/**
 * Every kind of change recorded in the audit log (docs/product.md §7). The project, deployment and webhook
 * types are listed here too so every service records from one vocabulary; extend it, don't bypass it.
 */
export const EVENT_TYPES = [
  'project.created',
  'project.updated',
  'project.deleted',
  'deployment.created',
  'deployment.status_changed',
  'configuration.created',
  'configuration.updated',
  'configuration.deleted',
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'user.created',
  'user.updated',
  'user.deleted',
  'user.password_changed',
  'user.password_set',
  'user.invitation_accepted',
  'user.invitation_declined',
  'oauth_client.created',
  'oauth_client.secret_rotated',
  'oauth_client.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.disabled',
  'trust_policy.created',
  'trust_policy.deleted',
  'token.exchanged',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
