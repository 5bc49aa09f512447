import { ApiError } from '../contract/errors.js';
import { type Exchange } from './exchange.js';

// Everything about request bodies, once: the media-type, encoding and length guards, reading, and
// JSON parsing (multipart uploads stream through multipart.ts).

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Largest JSON body accepted. */
export const JSON_BODY_LIMIT = 1024 * 1024;

/** Media type of a Content-Type header, without parameters, lower case. */
export function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** The guards every body passes before it is read: media type, no encoding, declared length. */
export function guardBody(ex: Exchange, expected: string, maxBytes: number, tooLarge = `The body exceeds ${maxBytes} bytes.`): void {
  if (mediaType(ex.head.contentType) !== expected) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${expected}.`);
  if (ex.head.contentEncoding !== '') throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding is not supported.');
  if ((ex.head.contentLength ?? 0) > maxBytes) throw new ApiError('PAYLOAD_TOO_LARGE', tooLarge);
}

/** A JSON request body, guarded, read (at most JSON_BODY_LIMIT bytes) and parsed. */
export async function readJsonBody(ex: Exchange): Promise<unknown> {
  guardBody(ex, 'application/json', JSON_BODY_LIMIT);
  return parseJsonBody(await readBody(ex, JSON_BODY_LIMIT));
}

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

/** Reads the whole body up to `limit` bytes. */
export function readBody(ex: Exchange, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    ex.onAbort(() => {
      if (!done) reject(new Error('client aborted'));
      done = true;
    });
    ex.onBody((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) {
        done = true;
        reject(new ApiError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
      if (isLast) {
        done = true;
        resolve(Buffer.concat(chunks, size));
      }
    });
  });
}
