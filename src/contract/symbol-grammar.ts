import { Type } from '@sinclair/typebox';

/**
 * The one symbol grammar (review M4), for uploads and for every request naming a symbol: 1–64
 * printable ASCII characters, no quotes (' " `) and no leading or trailing space; the first not
 * one of = + - @ (a spreadsheet would read a formula); not a name that reaches an object's
 * prototype. Names are echoed to clients and kept in memory, so they are bounded here.
 */
export const SYMBOL_MAX_LENGTH = 64;
const SYMBOL_FIRST = '[!#-&(-*,.-<>?A-_a-~]';
const SYMBOL_INNER = '[ !#-&(-_a-~]';
const SYMBOL_LAST = '[!#-&(-_a-~]';
export const SYMBOL_PATTERN = `^(?!(?:__proto__|constructor|prototype)$)${SYMBOL_FIRST}(?:${SYMBOL_INNER}{0,${SYMBOL_MAX_LENGTH - 2}}${SYMBOL_LAST})?$`;
const SYMBOL_RE = new RegExp(SYMBOL_PATTERN);
const RESERVED_SYMBOLS = new Set(['__proto__', 'constructor', 'prototype']);

/** Why `name` is not a symbol, in words for an error message; null when it is one. */
export function symbolProblem(name: string): string | null {
  if (SYMBOL_RE.test(name)) return null;
  if (name.length === 0) return 'is empty';
  if (name.length > SYMBOL_MAX_LENGTH) return `is longer than ${SYMBOL_MAX_LENGTH} characters`;
  if (RESERVED_SYMBOLS.has(name)) return 'is a reserved name';
  if (/[^\x20-\x7e]/.test(name)) return 'has a character that is not printable ASCII';
  if (/['"`]/.test(name)) return 'has a quote';
  if (/^[=+\-@]/.test(name)) return 'starts with = + - or @';
  return 'starts or ends with a space';
}

/** The symbol grammar as a schema (the same pattern the upload checks). */
export const SymbolName = (description = 'A symbol of the dataset.') =>
  Type.String({ minLength: 1, maxLength: SYMBOL_MAX_LENGTH, pattern: SYMBOL_PATTERN, description, examples: ['AAPL'] });
