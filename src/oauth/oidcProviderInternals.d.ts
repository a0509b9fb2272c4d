/**
 * The few oidc-provider modules Slipway reaches into (src/oauth/structuredTokens.ts): the introspection
 * and revocation endpoints' middleware lists, and the step of them that refuses JWTs.
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
declare module 'oidc-provider/lib/shared/reject_structured_tokens.js' {
  import type { KoaContextWithOIDC } from 'oidc-provider';
  export type OidcMiddleware = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> | void;
  const rejectStructuredTokens: OidcMiddleware;
  export default rejectStructuredTokens;
}
