import { ApiError } from './errors.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Parses a JSON body; keys that could reach an object's prototype are refused outright. */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new ApiError('MALFORMED_JSON', 'The body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text, (key, value: unknown) => {
      if (FORBIDDEN_KEYS.has(key)) throw new ApiError('MALFORMED_JSON', `The key "${key}" is not allowed.`);
      return value;
    });
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError('MALFORMED_JSON', e instanceof RangeError ? 'The JSON is nested too deeply.' : 'The body is not valid JSON.');
  }
}

/** Media type of a Content-Type header, without parameters, lower case. */
export function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}
