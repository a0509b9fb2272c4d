import { hash, verify } from '@node-rs/argon2';

// OWASP Password Storage Cheat Sheet: argon2id, 19 MiB memory, 2 iterations, 1 lane.
const OPTIONS = { algorithm: 2 /* Algorithm.Argon2id */, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;


export async function hashPassword(password: string): Promise<string> {
  return await hash(password, OPTIONS);
}

export async function verifyPassword(stored: string, candidate: string): Promise<boolean> {
  try {
    return await verify(stored, candidate);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** Spends the same time as a real check, so unknown emails cannot be told apart by timing. */
export async function verifyAgainstDummy(candidate: string): Promise<false> {
  dummyHash ??= hashPassword('slipway-timing-equaliser');
  await verifyPassword(await dummyHash, candidate);
  return false;
}
