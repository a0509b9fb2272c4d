import type { Changes } from '../lib/changes.ts';
import type { OAuthClientRepository } from '../repositories/oauthClients.ts';
import { registerFirstPartyClient } from './firstPartyClients.ts';
import { Service } from './service.ts';

/** The first-party CLI's client_id (docs/product.md §12): fixed, the CLI has it built in. */
export const CLI_CLIENT_ID = 'slipway-cli';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface CliClientDeps {
  oauthClients: OAuthClientRepository;
  changes: Changes;
}

/**
 * The user CLI's registration as an OAuth client, made the way the dashboard's is
 * (DashboardClientService): at every start, the same record however many instances start at once.
 * It is a first-party public client (no secret: it runs on people's machines) that signs in with the
 * device authorization grant (RFC 8628: no redirect URI, the person approves in a browser) and keeps
 * going with refresh tokens. Every token request must carry a DPoP proof (RFC 9449), so its tokens are
 * bound to a key the CLI made at login, and its refresh token, sender-constrained, is not rotated.
 */
export class CliClientService extends Service<CliClientDeps> {
  async ensureRegistered(): Promise<void> {
    await registerFirstPartyClient(this.deps, {
      _id: CLI_CLIENT_ID,
      client_name: 'Slipway CLI',
      redirect_uris: [],
      grant_types: [DEVICE_CODE_GRANT, 'refresh_token'],
      scope: 'read write admin',
      dpop_bound_access_tokens: true,
    });
  }
}
