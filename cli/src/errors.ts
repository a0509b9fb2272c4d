import { OAuthError, SlipwayError } from '@slipway/sdk';

/** The exit codes (README.md "Exit codes"): scripts may rely on them. */
export const EXIT = {
  ok: 0,
  /** Anything unexpected: the server failed (5xx), could not be reached, or answered what we cannot read. */
  error: 1,
  /** The command line is wrong: unknown command or option, missing or malformed argument. */
  usage: 2,
  /** Not signed in, or the server refused the credentials (401, an ended sign-in, a denied or expired login). */
  auth: 3,
  /** The API refused the request: forbidden, not found, conflict, validation, rate limit (4xx but 401). */
  refused: 4,
  /** No place to keep the credentials: no keychain answered and the file store is not allowed, or the store is unreadable. */
  store: 5,
  /** `deploy --wait`: the deployment ended but did not succeed (failed, canceled, rejected, superseded). */
  deploymentFailed: 6,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** What an error means for the person and the exit code. */
export function describeError(err: unknown): { message: string; exitCode: number; code: string | undefined } {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode, code: err.code };
  if (err instanceof OAuthError) {
    const auth = ['invalid_grant', 'invalid_token', 'access_denied', 'expired_token', 'invalid_client', 'invalid_dpop_proof'].includes(err.code);
    const hint = err.code === 'invalid_grant' ? ' Your sign-in has ended: run `slip login` again.' : '';
    return { message: `${err.message} (${err.code}).${hint}`, exitCode: auth ? EXIT.auth : EXIT.error, code: err.code };
  }
  if (err instanceof SlipwayError) {
    const id = err.requestId ? ` [request ${err.requestId}]` : '';
    const details = err.details?.length ? `\n${err.details.map((d) => `  ${d.field}: ${d.message}`).join('\n')}` : '';
    if (err.status === 401) return { message: `${err.message} (${err.code})${id}. Sign in with \`slip login\`, or set SLIPWAY_TOKEN.`, exitCode: EXIT.auth, code: err.code };
    if (err.status !== null && err.status >= 400 && err.status < 500) return { message: `${err.message} (${err.code})${id}${details}`, exitCode: EXIT.refused, code: err.code };
    return { message: `${err.message} (${err.code})${id}`, exitCode: EXIT.error, code: err.code };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { message, exitCode: EXIT.error, code: undefined };
}
