/** Cell-level rules of the CSV format: dates, prices and missing values. */

const MISSING = new Set(['', 'na', 'nan', 'null']);
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DECIMAL_COMMA = /^[+-]?\d+,\d+$/;
/** YYYY-MM-DD, then optionally an ISO 8601 time (hh:mm, :ss, a fraction) and zone (Z, ±hh, ±hh:mm, ±hhmm). */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]([01]\d|2[0-3]):[0-5]\d(?::(?:[0-5]\d|60)(?:[.,]\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?$/;

export type PriceCell = { kind: 'missing' } | { kind: 'price'; value: number } | { kind: 'invalid'; why: string };

export function parsePrice(raw: string, decimalComma: boolean): PriceCell {
  const text = raw.trim();
  if (MISSING.has(text.toLowerCase())) return { kind: 'missing' };
  const normalized = decimalComma && DECIMAL_COMMA.test(text) ? text.replace(',', '.') : text;
  if (!DECIMAL.test(normalized)) return { kind: 'invalid', why: 'is not a number' };
  const value = Number(normalized);
  if (!Number.isFinite(value)) return { kind: 'invalid', why: 'is not finite' };
  if (value <= 0) return { kind: 'invalid', why: 'is not positive' };
  return { kind: 'price', value };
}

/** The calendar date (YYYY-MM-DD) of an ISO 8601 date or date-time, or null. */
export function parseDate(raw: string): string | null {
  const m = ISO_DATE.exec(raw.trim());
  if (!m) return null;
  const [, y, mo, d] = m as unknown as [string, string, string, string];
  // setUTCFullYear, not Date.UTC, which reads years 0–99 as 1900–1999.
  const t = new Date(0);
  t.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  if (t.getUTCFullYear() !== Number(y) || t.getUTCMonth() !== Number(mo) - 1 || t.getUTCDate() !== Number(d)) {
    return null;
  }
  return `${y}-${mo}-${d}`;
}

/** Delimiter of the file, from its header line: `,` unless `;` or tab is more frequent. */
export function detectDelimiter(headerLine: string): ',' | ';' | '\t' {
  const count = (ch: string) => headerLine.split(ch).length - 1;
  const [comma, semi, tab] = [count(','), count(';'), count('\t')];
  if (semi > comma && semi >= tab) return ';';
  if (tab > comma && tab > semi) return '\t';
  return ',';
}
