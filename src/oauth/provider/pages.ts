import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from '../../logger.ts';
import { renderErrorPage, renderLogout, renderMessage } from '../views.ts';
import { unavailableOut } from './unavailable.ts';

type Features = NonNullable<Configuration['features']>;

/** OpenID Connect RP-initiated logout: `end_session_endpoint` with an `id_token_hint` ends the session; our pages. */
export const rpInitiatedLogout = {
  enabled: true,
  logoutSource(ctx, form) {
    // oidc-provider hands over its own form; the page is ours, with the same action and one-time token.
    const action = /action="([^"]+)"/.exec(form)?.[1] ?? '';
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(form)?.[1] ?? '';
    ctx.type = 'html';
    ctx.body = renderLogout({ action, xsrf, clientName: (ctx as KoaContextWithOIDC).oidc.client?.clientName });
  },
  postLogoutSuccessSource(ctx) {
    ctx.type = 'html';
    ctx.body = renderMessage('Signed out', 'You are signed out of Slipway. You can close this window.');
  },
} satisfies Features['rpInitiatedLogout'];

/** The error page a browser sees (OAuth errors that cannot go back to the client); server errors are logged. */
export function renderError(logger: Logger): NonNullable<Configuration['renderError']> {
  return (ctx, out, error) => {
    if ((error as { status?: number }).status === undefined || (error as { status: number }).status >= 500)
      logger.error({ err: error, request_id: ctx.state.requestId }, 'authorization server error');
    ctx.type = 'html';
    ctx.body = renderErrorPage(unavailableOut(out, error) as unknown as Record<string, string | undefined>);
  };
}
