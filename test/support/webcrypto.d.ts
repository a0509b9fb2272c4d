/**
 * The DOM's `CryptoKeyPair`, which @types/node has only as `webcrypto.CryptoKeyPair`: the TypeScript
 * SDK's sources (imported by test/sdk/) name it, as browsers and Node ≥ 20 both have it.
 */
import type { webcrypto } from 'node:crypto';

declare global {
  type CryptoKeyPair = webcrypto.CryptoKeyPair;
}
