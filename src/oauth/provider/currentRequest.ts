import { AsyncLocalStorage } from 'node:async_hooks';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The request being handled by the provider, for hooks that oidc-provider calls without a context. */
const store = new AsyncLocalStorage<KoaContextWithOIDC>();

export const currentRequest = (): KoaContextWithOIDC | undefined => store.getStore();

/** The provider's first middleware: everything after it (and every hook it calls) sees currentRequest(). */
export function trackCurrentRequest(provider: Provider): void {
  provider.use(async (ctx, next) => store.run(ctx as KoaContextWithOIDC, next));
}
