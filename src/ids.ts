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

export function newRequestId(): string {
  return 'req_' + randomBase62(20);
}

/** A caller's request id is taken as it is only when it is short and plain: it goes into logs and headers. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** W3C trace context: version-traceid-parentid-flags; the trace id names the request. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The request's id: the caller's X-Request-Id when sane, else the trace id of its traceparent, else a new one. */
export function requestIdOf(given: string, traceparent: string): string {
  if (SANE_REQUEST_ID.test(given)) return given;
  const trace = TRACEPARENT.exec(traceparent.trim())?.[1];
  return trace !== undefined && !/^0+$/.test(trace) ? trace : newRequestId();
}
