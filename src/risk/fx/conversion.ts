import { type DatasetCurrencies } from '../../datasets/dataset.js';

/** One FX column in a conversion: the local → reporting log return adds sign × the column's. */
export interface FxLeg {
  pair: string;
  sign: 1 | -1;
}

/** How a currency converts into the reporting currency (api.md §14). */
export interface Conversion {
  from: string;
  to: string;
  /** No legs when `from` is `to`. */
  legs: FxLeg[];
  /** The currency a cross goes through, else null. */
  via: string | null;
}

/** The direct pair `fromto`, else its inverse `tofrom`, else null. */
function directLeg(pairs: Set<string>, from: string, to: string): FxLeg | null {
  if (pairs.has(from + to)) return { pair: from + to, sign: 1 };
  if (pairs.has(to + from)) return { pair: to + from, sign: -1 };
  return null;
}

/**
 * `from` → `to` by the direct pair, else its inverse, else a cross through one currency that has
 * both legs (the first such currency in alphabetical order, so the choice never depends on the
 * file's column order); null when none exists.
 */
export function conversionOf(c: DatasetCurrencies, from: string, to: string): Conversion | null {
  if (from === to) return { from, to, legs: [], via: null };
  const pairs = new Set(c.fxPairs);
  const direct = directLeg(pairs, from, to);
  if (direct) return { from, to, legs: [direct], via: null };
  const currencies = [...new Set(c.fxPairs.flatMap((p) => [p.slice(0, 3), p.slice(3)]))].sort();
  for (const via of currencies) {
    if (via === from || via === to) continue;
    const [first, second] = [directLeg(pairs, from, via), directLeg(pairs, via, to)];
    if (first && second) return { from, to, legs: [first, second], via };
  }
  return null;
}

/** The conversion's rate from prices of its legs: Π price^sign, in leg order. */
export function rateOf(conversion: Conversion, price: (pair: string) => number): number {
  let rate = 1;
  for (const leg of conversion.legs) rate = leg.sign === 1 ? rate * price(leg.pair) : rate / price(leg.pair);
  return rate;
}
