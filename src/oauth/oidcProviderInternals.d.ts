/**
 * The few oidc-provider modules Slipway reaches into: the introspection and revocation endpoints'
 * middleware lists and the step of them that refuses JWTs, userinfo's audience rule (src/oauth/structuredTokens.ts), the token
 * endpoint's list, where the client's token is claimed before the grant handler (src/oauth/provider/budgets.ts), and the grant
 * revocation a second use of a code or refresh token triggers (src/oauth/singleUse.ts).
 */

declare module 'oidc-provider/lib/actions/introspection.js' {
  import type { OidcMiddleware } from 'oidc-provider/lib/shared/reject_structured_tokens.js';
  const action: OidcMiddleware[];
  export default action;
}
declare module 'oidc-provider/lib/actions/revocation.js' {
  import type { OidcMiddleware } from 'oidc-provider/lib/shared/reject_structured_tokens.js';
  const action: OidcMiddleware[];
  export default action;
}
declare module 'oidc-provider/lib/actions/token.js' {
  import type { OidcMiddleware } from 'oidc-provider/lib/shared/reject_structured_tokens.js';
  const action: OidcMiddleware[];
  export default action;
}
declare module 'oidc-provider/lib/actions/userinfo.js' {
  import type { OidcMiddleware } from 'oidc-provider/lib/shared/reject_structured_tokens.js';
  const action: OidcMiddleware[];
  export default action;
}
declare module 'oidc-provider/lib/shared/reject_structured_tokens.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  export type OidcMiddleware = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void;
  const rejectStructuredTokens: OidcMiddleware;
  export default rejectStructuredTokens;
}
declare module 'oidc-provider/lib/helpers/revoke.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  /** Revokes a grant and every token issued from it, as oidc-provider does on a second use (src/oauth/singleUse.ts). */
  export default function revoke(ctx: KoaContextWithOIDC, grantId: string): Promise<void>;
}
