import { ISO_4217 } from '../contract/currencies.js';
import { ApiError, validationError } from '../contract/errors.js';
import { type Dataset, type DatasetCurrencies } from './dataset.js';

/** The upload's optional currency fields, as received (multipart text fields). */
export interface CurrencyFields {
  currencies?: string;
  base_currency?: string;
}

/** Pair and inverse rates may differ by this much (relative) on a date before the file is refused. */
export const FX_INVERSE_TOLERANCE = 1e-6;

/** A column named `CCY1CCY2` of two distinct ISO 4217 codes: an FX rate, units of CCY2 per CCY1. */
export function isFxPair(symbol: string): boolean {
  if (!/^[A-Z]{6}$/.test(symbol)) return false;
  const [from, to] = [symbol.slice(0, 3), symbol.slice(3)];
  return from !== to && ISO_4217.has(from) && ISO_4217.has(to);
}

const fieldError = (loc: (string | number)[], msg: string, type = 'value_error') => validationError([{ loc: ['body', ...loc], msg, type }]);

/** `currencies` parsed: a JSON object of symbol → ISO code. */
function parseCurrencies(text: string, symbols: Set<string>): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fieldError(['currencies'], 'must be a JSON object {symbol: ISO 4217 code}', 'json_invalid');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw fieldError(['currencies'], 'must be a JSON object {symbol: ISO 4217 code}', 'object_type');
  }
  const out: Record<string, string> = {};
  for (const [symbol, code] of Object.entries(parsed as Record<string, unknown>)) {
    if (!symbols.has(symbol)) throw fieldError(['currencies', symbol], `${symbol.slice(0, 40)} is not a column of the file`, 'unknown_symbol');
    if (isFxPair(symbol)) throw fieldError(['currencies', symbol], 'an FX column has no currency of its own: its name gives both', 'value_error');
    if (typeof code !== 'string' || !ISO_4217.has(code)) throw fieldError(['currencies', symbol], 'must be an ISO 4217 alphabetic code', 'enum');
    out[symbol] = code;
  }
  return out;
}

/** Refuses a pair and its inverse that disagree beyond FX_INVERSE_TOLERANCE on a date both price. */
function checkInverses(d: Dataset, fxPairs: string[]): void {
  const column = new Map(d.symbols.map((s, i) => [s, i]));
  const n = d.symbols.length;
  for (const pair of fxPairs) {
    const inverse = pair.slice(3) + pair.slice(0, 3);
    const [a, b] = [column.get(pair)!, column.get(inverse)];
    if (b === undefined || a > b) continue;
    for (let r = 0; r < d.dates.length; r++) {
      const [x, y] = [d.prices[r * n + a]!, d.prices[r * n + b]!];
      if (Number.isNaN(x) || Number.isNaN(y) || Math.abs(x * y - 1) <= FX_INVERSE_TOLERANCE) continue;
      throw new ApiError(
        'INVALID_CSV',
        `${pair} ${x} and ${inverse} ${y} on ${d.dates[r]} are not inverse rates (product ${x * y}, tolerance ${FX_INVERSE_TOLERANCE}).`,
        {
          reason: 'INCONSISTENT_FX',
          date: d.dates[r],
          ...(d.layout === 'wide' ? { line: r + 2 } : {}),
          columns: [pair, inverse],
        },
      );
    }
  }
}

/**
 * The dataset with its currencies (api.md §14), or unchanged when the upload names none: then it is
 * single-currency and behaves as before. Every refusal names its field or line; nothing is stored.
 */
export function withCurrencies(d: Dataset, fields: CurrencyFields): Dataset {
  if (fields.currencies === undefined && fields.base_currency === undefined) return d;
  const base = fields.base_currency ?? null;
  if (base !== null && !ISO_4217.has(base)) throw fieldError(['base_currency'], 'must be an ISO 4217 alphabetic code', 'enum');
  const named = fields.currencies === undefined ? {} : parseCurrencies(fields.currencies, new Set(d.symbols));
  const fxPairs = d.symbols.filter(isFxPair);
  const bySymbol: Record<string, string> = {};
  const unnamed: string[] = [];
  for (const s of d.symbols) {
    if (isFxPair(s)) continue;
    const code = named[s] ?? base;
    if (code === null) unnamed.push(s);
    else bySymbol[s] = code;
  }
  if (unnamed.length > 0) {
    throw fieldError(
      ['base_currency'],
      `required: ${unnamed.slice(0, 5).join(', ')}${unnamed.length > 5 ? ', …' : ''} ha${unnamed.length > 1 ? 've' : 's'} no currency in currencies`,
      'missing',
    );
  }
  checkInverses(d, fxPairs);
  const currencies: DatasetCurrencies = { base, bySymbol, fxPairs };
  return { ...d, currencies };
}
