import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Metrics } from '../../http/metrics.ts';
import { clientOf } from '../../http/requestContext.ts';
import type { Logger } from '../../logger.ts';

const REFUSALS = ['server_error', 'authorization.error', 'grant.error', 'revocation.error', 'introspection.error'];

/** Refused requests logged (server errors at `error`), tokens issued and refresh reuse counted. */
export function logProviderEvents(provider: Provider, logger: Logger, metrics: Metrics): void {
  for (const event of REFUSALS) {
    (provider as unknown as NodeJS.EventEmitter).on(event, (ctx: KoaContextWithOIDC, err: Error & { status?: number; error_description?: string }) => {
      const level = event === 'server_error' || (err.status ?? 500) >= 500 ? 'error' : 'info';
      if (event === 'grant.error' && (err as { error_detail?: string }).error_detail === 'refresh token already used') metrics.refreshTokenReuse.inc();
      logger[level](
        { event, request_id: ctx.state?.requestId, ...clientOf(ctx), error: err.message, description: err.error_description, ...(level === 'error' ? { err } : {}) },
        'oauth request refused',
      );
    });
  }
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    metrics.tokenIssued(ctx.oidc.params?.grant_type);
    logger.info({ request_id: ctx.state?.requestId, client_id: ctx.oidc.client?.clientId }, 'tokens issued');
  });
}
