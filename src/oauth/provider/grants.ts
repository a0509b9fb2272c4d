import type { Configuration } from 'oidc-provider';
import type { ProviderStorage } from './storage.ts';

/**
 * The grant an authorization continues: the one just consented to, this session's, or a copy of the
 * consent given in another browser session. Each session gets a grant of its own with the same scopes:
 * revoking one device's tokens (or reuse detected there) must not end the others.
 */
export function loadExistingGrant(repos: Pick<ProviderStorage, 'consents'>): Configuration['loadExistingGrant'] {
  return async (ctx) => {
    const { Grant } = ctx.oidc.provider;
    const clientId = ctx.oidc.client!.clientId;
    const session = ctx.oidc.session!;
    const grantId = (ctx.oidc.result?.consent as { grantId?: string } | undefined)?.grantId ?? session.grantIdFor(clientId);
    if (grantId) return await Grant.find(grantId);
    const rememberedId = session.accountId ? await repos.consents.grantIdFor(session.accountId, clientId) : undefined;
    const remembered = rememberedId ? await Grant.find(rememberedId) : undefined;
    if (!remembered || remembered.accountId !== session.accountId || remembered.clientId !== clientId) return undefined;
    const grant = new Grant({ accountId: session.accountId, clientId });
    const oidcScope = remembered.getOIDCScope();
    if (oidcScope) grant.addOIDCScope(oidcScope);
    const claims = remembered.getOIDCClaims();
    if (claims.length) grant.addOIDCClaims(claims);
    for (const [resource, scope] of Object.entries(remembered.resources ?? {})) if (scope) grant.addResourceScope(resource, scope);
    await grant.save();
    return grant;
  };
}
