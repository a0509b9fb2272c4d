import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { AlreadyConsumed } from '../../repositories/oidc/index.ts';
import { onSingleUseClaimFailed, revokeGrant, type SingleUseArtifact } from './internals.ts';

/*
 * The losers of a single-use claim (src/repositories/oidc/adapter.ts: consume() and an interaction's
 * destroy() throw AlreadyConsumed to every caller but the first) get the OAuth answer oidc-provider gives
 * for a sequential second use, never a 500:
 *
 * - an authorization code or a refresh token: its grant is revoked (RFC 6749 §4.1.2, RFC 9700 §4.14.2:
 *   the tokens the winner received stop working, its access tokens are refused on /v1 through the grant
 *   revocation hook) and the request is refused with `invalid_grant`. oidc-provider consumes both before
 *   it issues anything (actions/grants/authorization_code.js, refresh_token.js), so a loser gets nothing;
 * - an approved device code (RFC 8628): `invalid_grant`, the grant kept. oidc-provider consumes it before
 *   it loads its grant (actions/grants/device_code.js), so revoking would take the grant from under the
 *   one poller that won; the tokens that poller gets are bound to its DPoP key. The adapter presents a
 *   used device code as unused (repositories/oidc/adapter.ts), so a later poll is refused here too;
 * - a pushed authorization request: `invalid_request_uri`;
 * - an interaction (the authorization resuming twice): the error page (`invalid_request`, "interaction
 *   session already used"), so one authorization yields one code.
 *
 * Outside a provider request (the dashboard's own callback consumes its code directly) the error is
 * `invalid_grant` without revoking: the caller decides what a lost claim means there.
 */

/** How a lost claim on each artifact is answered: the refusal, and whether the grant is revoked. */
const REFUSALS: Record<SingleUseArtifact, { refusal: () => Error; revokes: boolean }> = {
  // The same descriptions oidc-provider uses for a sequential second use (the reuse metric counts the refresh one).
  AuthorizationCode: { refusal: () => new errors.InvalidGrant('authorization code already consumed'), revokes: true },
  RefreshToken: { refusal: () => new errors.InvalidGrant('refresh token already used'), revokes: true },
  // Not revoked: oidc-provider loads a device code's grant after consuming it, so a revocation by a
  // concurrent loser would leave the poller that won with nothing (docs/product.md §12).
  DeviceCode: { refusal: () => new errors.InvalidGrant('device code already consumed'), revokes: false },
  PushedAuthorizationRequest: { refusal: () => new errors.InvalidRequestUri('request_uri is invalid, expired, or was already used'), revokes: false },
  Interaction: { refusal: () => new errors.SessionNotFound('interaction session already used'), revokes: false },
};

export function installSingleUseRefusals(provider: Provider, currentRequest: () => KoaContextWithOIDC | undefined): void {
  for (const [artifact, { refusal, revokes }] of Object.entries(REFUSALS) as Array<[SingleUseArtifact, (typeof REFUSALS)[SingleUseArtifact]]>) {
    onSingleUseClaimFailed(provider, artifact, async (err, claimed) => {
      if (!(err instanceof AlreadyConsumed)) throw err;
      const ctx = currentRequest();
      if (revokes && ctx?.oidc && claimed.grantId) await revokeGrant(ctx, claimed.grantId);
      throw refusal();
    });
  }
}
