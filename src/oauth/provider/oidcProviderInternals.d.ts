/**
 * The types of the few oidc-provider modules Slipway reaches into, all of them through its one seam,
 * ./internals.ts (which says what Slipway relies on in each): the introspection, revocation, userinfo and
 * token endpoints' steps, the step that refuses JWTs, and the grant revocation a second use triggers.
 * Each declaration stands alone (none imports another of oidc-provider's private modules).
 */

/** An endpoint's steps, as lib/actions/<endpoint>.js exports them: Koa middleware with `ctx.oidc`. */
// eslint-disable-next-line @typescript-eslint/consistent-type-imports -- a top-level import would make this file a module, and an untyped module cannot be augmented from one
type OidcProviderEndpointSteps = Array<(ctx: import('oidc-provider').KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void>;

declare module 'oidc-provider/lib/actions/introspection.js' { const steps: OidcProviderEndpointSteps; export default steps; }
declare module 'oidc-provider/lib/actions/revocation.js' { const steps: OidcProviderEndpointSteps; export default steps; }
declare module 'oidc-provider/lib/actions/token.js' { const steps: OidcProviderEndpointSteps; export default steps; }
declare module 'oidc-provider/lib/actions/userinfo.js' { const steps: OidcProviderEndpointSteps; export default steps; }

declare module 'oidc-provider/lib/shared/reject_structured_tokens.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  export default function rejectStructuredTokens(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void>;
}
declare module 'oidc-provider/lib/helpers/revoke.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  /** Revokes a grant and every token issued from it, as oidc-provider does on a second use (./singleUse.ts). */
  export default function revoke(ctx: KoaContextWithOIDC, grantId: string): Promise<void>;
}
declare module 'oidc-provider/lib/helpers/validate_dpop.js' {
  import type Provider from 'oidc-provider';
  import type { KoaContextWithOIDC } from 'oidc-provider';
  /** The request's DPoP proof, verified (undefined without one): what every grant binds its tokens to (./tokenExchange.ts). */
  export default function validateDpop(provider: Provider, ctx: KoaContextWithOIDC): Promise<unknown>;
  /** Claims the proof's `jti` once for the client (ReplayDetection); throws invalid_grant on a replay. */
  export function checkDpopReplay(provider: Provider, ctx: KoaContextWithOIDC, proof: unknown, clientId: string): Promise<void>;
}
