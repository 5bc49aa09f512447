// The option tests' market: 600 days of an AAPL walk (12 significant digits, as a CSV carries them)
// and a call struck at its last price, expiring 91 days after it.
import { iso, walk } from './price-series.js';

export const DAYS = 600;
export const prices = walk(DAYS, 31).map((p) => Number(p.toPrecision(12)));
export const EXPIRY = iso(DAYS - 1 + 91);
/** The underlying's last price, the valuation date's spot. */
export const S0 = prices[DAYS - 1]!;

/** A position of `quantity` × `multiplier` AAPL calls at the money, with `o` laid on its terms. */
export const option = (o: Record<string, unknown>, quantity = 1, multiplier = 1) => ({
  option: { underlying: 'AAPL', type: 'call', strike: Math.round(S0), expiry: EXPIRY, volatility: 0.25, rate: 0.03, ...o },
  quantity,
  multiplier,
});
