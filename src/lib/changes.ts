import { EventEmitter } from 'node:events';

/**
 * What this process learns the moment it makes a change, so what it holds in memory about it (cached
 * API keys, validated dashboard sessions, CORS origins, revoked grants) is updated at once. Other instances learn
 * within their cache bounds. One emitter per process, made by the composition root (src/container.ts)
 * and handed to the services that emit and the caches that listen.
 */
export interface ChangeEvents {
  /**
   * A user was removed, their role changed or their password changed or set: what this process holds
   * about them (validated dashboard sessions, their principal) is dropped, so the next request reads
   * the user, their role and their remaining sessions again.
   */
  userAccessRevoked: [userId: string];
  /** An API key was revoked or rotated. */
  apiKeyChanged: [keyId: string];
  /** An OAuth client was created or deleted (the set of redirect origins moved). */
  oauthClientsChanged: [];
  /**
   * A grant, access token, user or client was revoked (a key of RevokedGrantRepository): announced
   * before it is written, so the very next request here refuses its access tokens.
   */
  revoked: [key: string, at: Date];
}

export type Changes = EventEmitter<ChangeEvents>;

export function createChanges(): Changes {
  const changes = new EventEmitter<ChangeEvents>();
  changes.setMaxListeners(0);
  return changes;
}
