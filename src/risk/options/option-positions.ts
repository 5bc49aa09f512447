import { validationError } from '../../contract/errors.js';
import { type OptionEntry } from '../../contract/option-schemas.js';
import { type CalculateRequest, type CashEntry, type PositionEntry } from '../../contract/schemas.js';
import { type SymbolRef } from '../model-setup.js';

/** A calculate request whose positions are stock and cash only. */
export type StockRequest = Omit<CalculateRequest, 'positions'> & { positions?: (PositionEntry | CashEntry)[] };

/** An option position and where the request states it. */
export interface StatedOption {
  entry: OptionEntry;
  /** Its index in `positions`. */
  index: number;
}

const isOption = (p: PositionEntry | CashEntry | OptionEntry): p is OptionEntry => 'option' in p;

/** A request's options apart from its stock and cash positions (calculate's and stress's). */
export function splitOptions<R extends { positions?: (PositionEntry | CashEntry | OptionEntry)[] }>(
  req: R,
): { req: Omit<R, 'positions'> & { positions?: (PositionEntry | CashEntry)[] }; options: StatedOption[] } {
  if (!req.positions) return { req: req as Omit<R, 'positions'> & { positions?: (PositionEntry | CashEntry)[] }, options: [] };
  const options: StatedOption[] = [];
  const rest: (PositionEntry | CashEntry)[] = [];
  req.positions.forEach((p, index) => (isOption(p) ? options.push({ entry: p, index }) : rest.push(p)));
  return { req: { ...req, positions: rest }, options };
}

/**
 * Where each dataset symbol of a book with options is stated: a stock position at its own index in
 * `positions` (not its index among the stock positions), an option's underlying at its field.
 */
export function optionBookRefs(positions: (PositionEntry | CashEntry | OptionEntry)[]): SymbolRef[] {
  return positions.flatMap((p, i): SymbolRef[] =>
    isOption(p)
      ? [{ symbol: p.option.underlying, loc: ['body', 'positions', i, 'option', 'underlying'] }]
      : 'symbol' in p
        ? [{ symbol: p.symbol, loc: ['body', 'positions', i, 'symbol'] }]
        : [],
  );
}

const DAY_MS = 86_400_000;
/** Longest time to expiry the engine prices (engine/core/src/options/revalue.rs). */
export const MAX_EXPIRY_YEARS = 100;

/** Days from `from` to `to` (YYYY-MM-DD), or NaN where `to` is no calendar date. */
function daysBetween(from: string, to: string): number {
  const t = Date.parse(`${to}T00:00:00Z`);
  if (!Number.isFinite(t) || new Date(t).toISOString().slice(0, 10) !== to) return Number.NaN;
  return Math.round((t - Date.parse(`${from.slice(0, 10)}T00:00:00Z`)) / DAY_MS);
}

/** τ in years from `date` to a valid `expiry` (YYYY-MM-DD): whole calendar days / 365 (api.md §15). */
export function yearsToExpiry(expiry: string, date: string): number {
  return daysBetween(date, expiry) / 365;
}

/** A 422 VALIDATION_ERROR at `loc`: what the option paths refuse. */
export const refuseAt = (loc: (string | number)[], msg: string) => validationError([{ loc, msg, type: 'value_error' }]);

/**
 * Each option's time to expiry τ = (expiry − the dataset's last date) / 365 in years; an expiry
 * that is no date or lies before that date is refused at its field.
 */
export function timesToExpiry(options: StatedOption[], lastDate: string, at: (string | number)[] = ['body', 'positions']): number[] {
  return options.map(({ entry, index }) => {
    const days = daysBetween(lastDate, entry.option.expiry);
    if (!(days >= 0 && days <= MAX_EXPIRY_YEARS * 365)) {
      const msg = Number.isNaN(days)
        ? 'not a calendar date'
        : days < 0
          ? `expiry before the dataset’s last date ${lastDate.slice(0, 10)}`
          : `expiry more than ${MAX_EXPIRY_YEARS} years after the dataset’s last date`;
      throw validationError([{ loc: [...at, index, 'option', 'expiry'], msg, type: 'value_error' }]);
    }
    return days / 365;
  });
}

/** A readable name for an option's row in `contributions`. */
export function optionLabel(o: OptionEntry): string {
  return `${o.option.underlying} ${o.option.type} ${o.option.strike} ${o.option.expiry}`;
}

/** Compares two tuples of strings and numbers, element by element. */
function compareTuples(a: (string | number)[], b: (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The options in a canonical order (api.md §13: the book fixes the figures, not its listing): by
 * every term of the position, so a shuffled listing prices the same columns in the same order.
 * Positions equal in every term are interchangeable, so their relative order does not matter.
 */
export function canonicalOptions(options: StatedOption[]): StatedOption[] {
  const key = ({ entry: { option: o, quantity, multiplier } }: StatedOption) => [
    o.underlying,
    o.type,
    o.model ?? 'black_scholes',
    o.strike,
    o.expiry,
    o.volatility,
    o.rate ?? 0,
    o.dividend_yield ?? 0,
    multiplier ?? 1,
    quantity,
  ];
  return [...options].sort((a, b) => compareTuples(key(a), key(b)));
}

/** Indices of `items` in a canonical order of `key` (ties keep their order: they are equal). */
export function canonicalIndices<T>(items: T[], key: (item: T) => (string | number)[]): number[] {
  return items.map((_, i) => i).sort((a, b) => compareTuples(key(items[a]!), key(items[b]!)));
}
