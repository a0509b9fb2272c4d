/**
 * The types of the few oidc-provider modules Slipway reaches into, all of them through its one seam,
 * ./internals.ts (which says what Slipway relies on in each): the introspection, revocation, userinfo and
 * token endpoints' steps, the step that refuses JWTs, and the grant revocation a second use triggers.
 * Each declaration stands alone (no module here imports another of oidc-provider's private modules).
 */

declare module 'oidc-provider/lib/actions/introspection.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  const action: Array<(ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void>;
  export default action;
}
declare module 'oidc-provider/lib/actions/revocation.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  const action: Array<(ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void>;
  export default action;
}
declare module 'oidc-provider/lib/actions/token.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  const action: Array<(ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void>;
  export default action;
}
declare module 'oidc-provider/lib/actions/userinfo.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  const action: Array<(ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void>;
  export default action;
}
declare module 'oidc-provider/lib/shared/reject_structured_tokens.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  export default function rejectStructuredTokens(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void>;
}
declare module 'oidc-provider/lib/helpers/revoke.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  /** Revokes a grant and every token issued from it, as oidc-provider does on a second use (./singleUse.ts). */
  export default function revoke(ctx: KoaContextWithOIDC, grantId: string): Promise<void>;
}
