import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'prk_live_';
const KEY_PATTERN = /^prk_live_[0-9A-Za-z]{32}$/;

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

export function generateApiKey(): string {
  return KEY_PREFIX + randomBase62(32);
}

/** Public identifier of a key: safe to log, shows nothing of the key. */
export function generateKeyId(): string {
  return 'key_' + randomBase62(12);
}

export function isWellFormedKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
