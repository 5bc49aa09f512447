import { KEY_PREFIX } from '../ids.js';

const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{32}$`);

/** Whether a presented value has the shape of a live key (before any lookup). */
export function isWellFormedKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}
