import { randomBytes } from 'node:crypto';

// Every identifier the service makes, in one place: random parts from the CSPRNG, base62.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Prefix of a live API key. */
export const KEY_PREFIX = 'prk_live_';

/** `length` base62 characters from the CSPRNG, without modulo bias (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new API key (a secret: shown once, stored only as a keyed hash). */
export function newApiKey(): string {
  return KEY_PREFIX + randomBase62(32);
}

/** Public identifier of a key: safe to log, shows nothing of the key. */
export function newKeyId(): string {
  return 'key_' + randomBase62(12);
}

export function newDatasetId(): string {
  return 'ds_' + randomBase62(22);
}

export function newCalculationId(): string {
  return 'calc_' + randomBase62(20);
}
