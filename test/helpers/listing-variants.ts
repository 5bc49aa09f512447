// The same book listed otherwise (api.md §13): its items shuffled, and one position split into two
// parts that add up exactly, placed apart. The figures must not move; only the answer's lists, which
// keep the request's order, may. `listingFree` writes an outcome without that order.
import { type CalculateRequest, type CashEntry, type PositionEntry } from '../../src/contract/schemas.js';
import { type Outcome } from './four-builds.js';
import { mulberry32 } from './mulberry32.js';
import { bitJson } from './bit-json.js';

function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Two amounts that add up to `a` exactly in double precision, or null (a subnormal's half may not). */
export function halves(a: number): [number, number] | null {
  const first = a / 2;
  const second = a - first;
  return first + second === a && Object.is(first + second, a) ? [first, second] : null;
}

/** `p` as two positions of the same kind whose amounts add up to its own exactly, or null. */
function splitPosition(p: PositionEntry | CashEntry): [PositionEntry | CashEntry, PositionEntry | CashEntry] | null {
  if ('cash' in p) {
    const cash = halves(p.amount);
    return (
      cash && [
        { cash: p.cash, amount: cash[0] },
        { cash: p.cash, amount: cash[1] },
      ]
    );
  }
  const field = p.quantity !== undefined ? 'quantity' : 'market_value';
  const parts = halves(p[field]!);
  return (
    parts && [
      { symbol: p.symbol, [field]: parts[0] },
      { symbol: p.symbol, [field]: parts[1] },
    ]
  );
}

/**
 * The request with its book (and trades) shuffled by `seed`; a positions book also has one
 * position, chosen by the seed, split in two with the second part last. Weights stay one per symbol.
 */
export function relisted(request: CalculateRequest, seed: number): CalculateRequest {
  const rand = mulberry32(seed);
  const out: CalculateRequest = { ...request };
  if (request.portfolio) out.portfolio = shuffled(request.portfolio, rand);
  if (request.what_if) out.what_if = { trades: shuffled(request.what_if.trades, rand) };
  if (request.positions) {
    const positions = shuffled(request.positions, rand);
    const at = Math.floor(rand() * positions.length);
    const chosen = positions[at]!;
    const parts = 'option' in chosen ? undefined : splitPosition(chosen);
    if (parts) positions.splice(at, 1, parts[0]);
    out.positions = parts ? [...positions, parts[1]] : positions;
  }
  return out;
}

type Row = { symbol: string };
const bySymbol = <T extends Row>(rows: readonly T[]) => [...rows].sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
/**
 * Contributions without their request indices (an option's or a sensitivity's index moves with
 * the listing), in the order of their content: two options with one label stay two rows.
 */
const byContent = (rows: readonly (Row & { option?: number; sensitivity?: number })[]) =>
  rows.map(({ option: _option, sensitivity: _sensitivity, ...row }) => bitJson(row)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const sortedKeys = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * What must be identical however the book is listed: the response without its id, timings and
 * engine name, its per-symbol rows and maps in symbol order; a refusal by its code and issue types
 * (its locations name the request's own indices).
 */
export function listingFree(o: Outcome): string {
  if (!o.ok) return bitJson({ status: o.status, code: o.code, issues: o.issues });
  const m = o.body.meta;
  const exposures = (x: typeof m.exposures) => ({ ...x, items: bySymbol(x.items) });
  return bitJson({
    ...m,
    calculation_id: null,
    timing_ms: null,
    engine: null,
    contributions: byContent(m.contributions),
    exposures: exposures(m.exposures),
    estimation: { ...m.estimation, daily_mean: sortedKeys(m.estimation.daily_mean), daily_volatility: sortedKeys(m.estimation.daily_volatility) },
    ...(m.filter ? { filter: sortedKeys(m.filter) } : {}),
    ...(m.what_if ? { what_if: { ...m.what_if, exposures: exposures(m.what_if.exposures) } } : {}),
  });
}
