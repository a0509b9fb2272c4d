import type { AdapterPayload } from 'oidc-provider';
import { sha256Hex } from '../../lib/hash.ts';
import { recordOf, sealUnder } from './sealing.ts';

/**
 * The stored documents of oidc-provider's models (`oidc_<model>`), declared once: the adapter writes
 * them, the revocation queries and maintenance read them. See ./index.ts for what is kept and why.
 */
export interface StoredArtifact {
  _id: string;
  /** base64url(iv ‖ tag ‖ AES-256-GCM(JSON payload)), key = HKDF(id) (./sealing.ts). */
  sealed: string;
  grant_id?: string;
  /** SHA-256 of the session uid; `uid_sealed` is the id sealed under the uid's key. */
  uid?: string;
  uid_sealed?: string;
  user_code?: string;
  user_code_sealed?: string;
  account_id?: string;
  client_id?: string;
  expires_at: Date | null;
  consumed_at?: Date;
}

/** Records written before ids were hashed: `_id` is the raw id and `payload` is clear JSON. */
export interface LegacyArtifact {
  _id: string;
  payload: string;
  expires_at: Date | null;
  consumed_at?: Date;
}

/**
 * A claim of a single-use artifact (`oidc_claims`; a refresh token's is kept beside it in
 * `oidc_refresh_token`, under refreshTokenClaimId).
 */
export interface ClaimDoc {
  _id: string;
  claimed_at: Date;
  expires_at: Date;
}

export const OIDC_MODELS = [
  'Session',
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'ClientCredentials',
  'InitialAccessToken',
  'RegistrationAccessToken',
  'Interaction',
  'ReplayDetection',
  'PushedAuthorizationRequest',
  'Grant',
  'BackchannelAuthenticationRequest',
] as const;

/** The models whose artifacts name the grant they were issued from (`grant_id`, in clear). */
export const GRANT_BOUND_MODELS = ['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest'] as const;

export function collectionName(model: string): string {
  return `oidc_${model.replace(/[A-Z]/g, (c, i: number) => (i ? '_' : '') + c.toLowerCase())}`;
}

/** Where single-use artifacts are claimed: `_id` = `${model}:${SHA-256 of the id}` (never the id itself). */
export const OIDC_CLAIMS = 'oidc_claims';

/**
 * The `_id` of the claim of the refresh token stored under `hashedId`, in the refresh tokens' own
 * collection, so that the claim and the token that replaces it are one insert (./adapter.ts, rotate()).
 * It never looks like a stored token's `_id` (a hex SHA-256).
 */
export const refreshTokenClaimId = (hashedId: string) => `used:${hashedId}`;

/**
 * Where versions before the indexed embedded database moved used refresh tokens (stored form,
 * `consumed_at` set). Nothing is moved there any more: it is read on a miss and swept until it is empty.
 */
export const CONSUMED_REFRESH_TOKENS = `${collectionName('RefreshToken')}_consumed`;

/** The stored form of an artifact: `_id`, sealed payload and the clear fields revocation queries. */
export function storedArtifact(model: string, id: string, payload: AdapterPayload, expiresAt: Date | null): StoredArtifact {
  const _id = sha256Hex(id);
  const record = recordOf(model, _id);
  const doc: StoredArtifact = { _id, sealed: sealUnder('payload', id, record, JSON.stringify(payload)), expires_at: expiresAt };
  if (model === 'Grant') doc.grant_id = id;
  else if (typeof payload.grantId === 'string') doc.grant_id = payload.grantId;
  if (typeof payload.uid === 'string') {
    doc.uid = sha256Hex(payload.uid);
    doc.uid_sealed = sealUnder('uid', payload.uid, record, id);
  }
  if (typeof payload.userCode === 'string') {
    doc.user_code = sha256Hex(payload.userCode);
    doc.user_code_sealed = sealUnder('user_code', payload.userCode, record, id);
  }
  if (model === 'Grant' || model === 'Session') {
    if (typeof payload.accountId === 'string') doc.account_id = payload.accountId;
    if (model === 'Grant' && typeof payload.clientId === 'string') doc.client_id = payload.clientId;
  }
  return doc;
}
