import { createHash } from 'node:crypto';

/** SHA-256 of a UTF-8 string, hex: how tokens, keys and secrets are stored and looked up. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
