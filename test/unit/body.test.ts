// Request bodies before any handler sees them: JSON parsing (UTF-8, syntax, prototype keys, depth),
// media types, and the guards (415 for the wrong type or any encoding, 413 over the declared length).
import t, { type Test } from 'tap';
import { ApiError } from '../../src/contract/errors.js';
import { JSON_BODY_LIMIT, guardBody, mediaType, parseJsonBody } from '../../src/http/body.js';
import { type Exchange } from '../../src/http/exchange.js';

function caught(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('nothing thrown');
}

function malformed(t: Test, body: Buffer | string, message: RegExp, why = JSON.stringify(String(body).slice(0, 40))) {
  const e = caught(() => parseJsonBody(Buffer.isBuffer(body) ? body : Buffer.from(body)));
  t.equal(e.code, 'MALFORMED_JSON', why);
  t.equal(e.status, 400);
  t.match(e.message, message);
}

t.test('valid JSON of every kind parses', async (t) => {
  const req = { dataset_id: 'ds_1', portfolio: [{ symbol: 'Ä', weight: 1 }], n: null, ok: true };
  t.same(parseJsonBody(Buffer.from(JSON.stringify(req))), req);
  t.equal(parseJsonBody(Buffer.from('null')), null);
  t.equal(parseJsonBody(Buffer.from(' 42 ')), 42, 'surrounding whitespace');
  t.equal(parseJsonBody(Buffer.from('"x"')), 'x');
  t.same(parseJsonBody(Buffer.from('[]')), []);
  t.same(parseJsonBody(Buffer.from('\ufeff{"a":1}')), { a: 1 }, 'a UTF-8 BOM is dropped');
  t.same(parseJsonBody(Buffer.from('{"__proto__x":1,"proto":2,"Constructor":3}')), { __proto__x: 1, proto: 2, Constructor: 3 }, 'near-miss keys are fine');
  t.same(parseJsonBody(Buffer.from('{"k":"__proto__"}')), { k: '__proto__' }, 'forbidden words as values are fine');
  t.same(parseJsonBody(Buffer.from('{"a":1,"a":2}')), { a: 2 }, 'duplicate keys: the last wins, as JSON.parse');
});

t.test('bytes that are not UTF-8 are refused', async (t) => {
  malformed(t, Buffer.from([0xff]), /UTF-8/, 'lone 0xff');
  malformed(t, Buffer.from([0x22, 0xc3, 0x22]), /UTF-8/, 'truncated sequence');
  malformed(t, Buffer.from([0x22, 0xc0, 0xaf, 0x22]), /UTF-8/, 'overlong "/"');
  malformed(t, Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), /UTF-8/, 'encoded surrogate');
  malformed(t, Buffer.from([0x22, 0xf4, 0x90, 0x80, 0x80, 0x22]), /UTF-8/, 'above U+10FFFF');
  malformed(t, Buffer.from('{"a":"\u00e9"}', 'latin1'), /UTF-8/, 'Latin-1');
});

t.test('text that is not JSON is refused', async (t) => {
  for (const text of ['', ' ', '{', '{"a":1,}', '[1,]', "{'a':1}", '{a:1}', 'NaN', 'undefined', '01', '{"a":1}x', '"\u0001"']) {
    malformed(t, text, /not valid JSON/);
  }
});

t.test('keys that could reach a prototype are refused at any depth', async (t) => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    malformed(t, `{"${key}":{}}`, new RegExp(`"${key}" is not allowed`));
    malformed(t, `{"a":{"b":[1,{"c":{"${key}":1}}]}}`, new RegExp(key), `${key} deep in arrays and objects`);
    malformed(t, `[[[[{"${key}":null}]]]]`, new RegExp(key), `${key} in nested arrays`);
  }
  malformed(t, '{"\\u005f_proto__":{"polluted":true}}', /__proto__/, 'an escaped key is caught after unescaping');
  malformed(t, '{"ok":1,"constructor":{"prototype":{"x":1}}}', /not allowed/);
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
});

t.test('nesting too deep for the parser is a 400, not a crash', async (t) => {
  const nest = (d: number) => '['.repeat(d) + ']'.repeat(d);
  t.same(parseJsonBody(Buffer.from(nest(100))), JSON.parse(nest(100)), 'depth 100 is fine');
  // Within the 1 MiB limit one can nest ~500k deep: that must fail cleanly.
  const deep = nest(JSON_BODY_LIMIT / 2);
  t.equal(deep.length, JSON_BODY_LIMIT);
  malformed(t, deep, /nested too deeply/, 'depth 524288');
  malformed(t, '{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000), /nested too deeply/, 'deep objects');
});

t.test('mediaType: the type without parameters, trimmed and lower-cased', async (t) => {
  t.equal(mediaType('application/json'), 'application/json');
  t.equal(mediaType('Application/JSON; charset=UTF-8'), 'application/json');
  t.equal(mediaType('  multipart/form-data ; boundary=x'), 'multipart/form-data');
  t.equal(mediaType(''), '');
  t.equal(mediaType(';charset=utf-8'), '');
  t.equal(mediaType('text/plain;a=b;c=d'), 'text/plain');
});

const ex = (contentType: string, contentEncoding = '', contentLength: number | null = null) =>
  ({ head: { contentType, contentEncoding, contentLength } }) as unknown as Exchange;

t.test('guardBody passes a right type with no encoding and length up to the limit', async (t) => {
  t.doesNotThrow(() => guardBody(ex('application/json'), 'application/json', 100), 'no declared length (chunked)');
  t.doesNotThrow(() => guardBody(ex('application/json; charset=utf-8', '', 0), 'application/json', 100), 'empty body');
  t.doesNotThrow(() => guardBody(ex('APPLICATION/JSON', '', 100), 'application/json', 100), 'exactly the limit');
  t.doesNotThrow(() => guardBody(ex('multipart/form-data; boundary=----x', '', 5), 'multipart/form-data', 10));
});

t.test('guardBody refuses the wrong media type with 415', async (t) => {
  for (const type of ['', 'text/plain', 'application/jsonx', 'application/x-json', 'application/json-seq', 'multipart/form-data', 'json']) {
    const e = caught(() => guardBody(ex(type, '', 10), 'application/json', 100));
    t.equal(e.code, 'UNSUPPORTED_MEDIA_TYPE', JSON.stringify(type));
    t.equal(e.status, 415);
    t.equal(e.message, 'Content-Type must be application/json.');
  }
});

t.test('guardBody refuses any Content-Encoding with 415', async (t) => {
  for (const enc of ['gzip', 'deflate', 'br', 'identity', 'GZIP', ' ']) {
    const e = caught(() => guardBody(ex('application/json', enc, 10), 'application/json', 100));
    t.equal(e.code, 'UNSUPPORTED_MEDIA_TYPE', JSON.stringify(enc));
    t.equal(e.status, 415);
    t.match(e.message, /Content-Encoding/);
  }
});

t.test('guardBody refuses a declared length over the limit with 413', async (t) => {
  const e = caught(() => guardBody(ex('application/json', '', 101), 'application/json', 100));
  t.equal(e.code, 'PAYLOAD_TOO_LARGE', 'one byte over');
  t.equal(e.status, 413);
  t.equal(e.message, 'The body exceeds 100 bytes.', 'default message');
  const custom = caught(() => guardBody(ex('multipart/form-data', '', 1e12), 'multipart/form-data', 10, 'too big'));
  t.equal(custom.message, 'too big', 'custom message');
  t.equal(caught(() => guardBody(ex('application/json', '', 1), 'application/json', 0)).code, 'PAYLOAD_TOO_LARGE', 'limit 0');
});

t.test('guardBody checks type, then encoding, then length', async (t) => {
  t.match(caught(() => guardBody(ex('text/plain', 'gzip', 1e9), 'application/json', 1)).message, /Content-Type/);
  t.match(caught(() => guardBody(ex('application/json', 'gzip', 1e9), 'application/json', 1)).message, /Content-Encoding/);
  t.equal(caught(() => guardBody(ex('application/json', '', 1e9), 'application/json', 1)).code, 'PAYLOAD_TOO_LARGE');
});
