/**
 * Storage for oidc-provider's models in MongoDB, with nothing recoverable at rest: every artifact (code,
 * refresh token, session, interaction, grant, ...) is stored under `_id` = SHA-256 of its id, and its
 * payload (which carries the id as `jti`, and other ids: a session's `uid`, an interaction's session
 * cookie and return URL) is sealed with AES-256-GCM under a key derived from the id itself (HKDF, through
 * the secret box: ./sealing.ts). So whoever reads the database files learns neither the ids nor the
 * payloads, and whoever presents an id is the only one who can look the artifact up and open it.
 * Secondary lookup keys that are credentials (a session's `uid`, a device `userCode`) are stored hashed
 * too, next to the id sealed under their own key. What stays in clear is what revocation must query:
 * `grant_id` (not a credential: it is also in every access token), and a grant's or session's
 * `account_id` and `client_id`.
 *
 * Payloads are JSON text (they carry resource URLs as keys, with dots, which FerretDB refuses). Expiry
 * is by query (`expires_at`) plus a periodic sweep, not a TTL index (./maintenance.ts).
 *
 * Used refresh tokens are kept until they expire, so that presenting one again is detected as reuse
 * (and revokes its grant). They stay where they were, in `oidc_refresh_token`, marked `consumed_at`: the
 * embedded database answers a find by `_id` from its index (tools/ferretdb/patches), so a refresh costs
 * the same with 100,000 used tokens beside it as with none (bench/RESULTS.md, scaling table). Versions
 * before that moved used tokens to `oidc_refresh_token_consumed` shortly after use, because the stock
 * FerretDB read the whole collection for every find; that collection is still read when a token is not
 * among the live ones, and swept, until the last token moved there expires (30 days).
 *
 * Single use (codes, refresh tokens, pushed requests): consume() claims the artifact with a claim
 * (src/db/claims.ts): of any number of concurrent consumers on any number of instances exactly one wins;
 * the others get AlreadyConsumed. Codes and pushed requests insert `${model}:${hashed id}` into
 * `oidc_claims`. A refresh token's claim is `used:${hashed id}` in `oidc_refresh_token` itself: when it is
 * rotated in a token request, its claim and its successor are one ordered insert (the claim first; a
 * loser's insert stops there and stores nothing), then the winner marks the used token `consumed_at`. An
 * update after a read (how consume() worked before) is not a claim: FerretDB applies it as
 * read-modify-write, and every concurrent request that had read the artifact unused went on to issue
 * tokens. Interactions are single use by their delete (./adapter.ts, destroy()). Versions before the
 * successor's insert claimed refresh tokens in `oidc_claims`: while instances of both run side by side
 * (a rolling upgrade), two concurrent rotations of one token, one on each, could both succeed; a
 * token used before the upgrade is marked `consumed_at` and refused as reuse.
 *
 * Grants and unused refresh tokens are answered from memory for at most `holdMs`
 * (REVOCATION_REFRESH_SECONDS, the bound a revocation made on another instance already has;
 * heldArtifacts.ts): one saved, consumed, destroyed or revoked in this process is dropped at once, and a
 * grant revoked here drops its refresh tokens. A token held when another instance revoked its grant may be
 * refreshed until its hold ends; the access tokens it issues meanwhile name the revoked grant, which every
 * instance's /v1 refuses within the same bound. Codes are always read from the database. What is held
 * never decides single use: a rotation is decided by its claim.
 *
 * The parts: sealing.ts (the sealed format), artifacts.ts (the stored documents and collection names),
 * adapter.ts (oidc-provider's `Adapter`), heldArtifacts.ts (grants and refresh tokens held in memory), clients.ts (a stored client as provider metadata, with the
 * scopes every client may ask for), grants.ts (revocation queries), maintenance.ts (indexes, the sweep,
 * the migration of records stored before ids were hashed).
 */
export { AlreadyConsumed, createAdapterClass, type AdapterHooks } from './adapter.ts';
export { CONSUMED_REFRESH_TOKENS, OIDC_CLAIMS, OIDC_MODELS, collectionName, storedArtifact, type StoredArtifact } from './artifacts.ts';
export { clientMetadata } from './clients.ts';
export { OidcArtifactRepository } from './grants.ts';
export { ensureOidcIndexes, migrateOidcArtifacts, sweepOidc } from './maintenance.ts';
