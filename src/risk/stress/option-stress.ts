import { OPTION_BOUNDS } from '../../contract/option-schemas.js';
import { type StressScenarioInput } from '../../contract/stress-schemas.js';
import { ABI } from '../../engine/abi.js';
import { type EngineExecutor } from '../../engine/ops.js';
import { repricedValues, type PricedOption } from '../options/option-columns.js';
import { optionLabel, refuseAt, type StatedOption } from '../options/option-positions.js';
import { OPTION_REPRICING_UNITS } from '../work-cost.js';
import { type PriceHistory } from '../price-history.js';
import { type StressItem, type StressOutcome } from './scenarios.js';

/**
 * An option of a stressed book: as priced now, its size (quantity × multiplier, × the rate into the
 * reporting currency when its underlying is foreign) and value per unit now (local currency).
 */
export interface StressedOption {
  priced: PricedOption;
  /** Its underlying's (local price's) index among the book's own symbols. */
  column: number;
  /** A foreign underlying's: the index of its currency's cash column (the rate), else −1. */
  fx: number;
  size: number;
  valueNow: number;
}

/** A foreign option's value after a move: converted at the rate's move too, X·(1 + f)·V (api.md §14). */
export const converted = (value: number, fxReturn: number) => value * (1 + fxReturn);

/** Most option repricings of a request's worst-window searches (each window × each option). */
export const MAX_STRESS_REPRICINGS = 2_000_000;

const worstCount = (scenarios: StressScenarioInput[]) => scenarios.filter((s) => s.type === 'historical_worst').length;

/** Repricings of a request's options: once per scenario, and per window of each worst-window search. */
export function optionStressUnits(scenarios: StressScenarioInput[], options: number, dates: number): number {
  return (scenarios.length + worstCount(scenarios) * dates) * options * OPTION_REPRICING_UNITS;
}

/**
 * A book's options under stress: at most MAX_OPTIONS, the worst-window searches within
 * MAX_STRESS_REPRICINGS, and each scenario's shifted volatility where the pricer is defined, [1e-6, 5].
 */
export function checkOptionStress(scenarios: StressScenarioInput[], options: StatedOption[], dates: number): void {
  if (options.length === 0) return;
  if (options.length > ABI.MAX_OPTIONS) throw refuseAt(['body', 'positions'], `at most ${ABI.MAX_OPTIONS} option positions`);
  const searched = worstCount(scenarios) * dates * options.length;
  if (searched > MAX_STRESS_REPRICINGS) {
    throw refuseAt(['body', 'scenarios'], `historical_worst scenarios × dates × options must be at most ${MAX_STRESS_REPRICINGS}: ${searched}`);
  }
  const volatilities = options.map((o) => o.entry.option.volatility);
  scenarios.forEach((s, i) => {
    const shift = s.vol_shift ?? 0;
    const bad = volatilities.find((v) => !(v + shift >= OPTION_BOUNDS.minVolatility && v + shift <= OPTION_BOUNDS.maxVolatility));
    if (bad === undefined) return;
    throw refuseAt(
      ['body', 'scenarios', i, 'vol_shift'],
      `an option’s volatility ${bad} shifted by ${shift} leaves [${OPTION_BOUNDS.minVolatility}, ${OPTION_BOUNDS.maxVolatility}]`,
    );
  });
}

/**
 * Values per unit of every option in each of `moves` moves, move-major (move m, option k at
 * m·options + k), by the engine's pricer: option k at its underlying moved by the simple return
 * `returnOf(m, k)`, volatility + `shiftOf(m)`, τ unchanged (a scenario is an instantaneous move of
 * today's book). An underlying at 0 (a −100 % shock) takes the pricer's limit there: a call 0, a
 * put K·e^{−rτ}.
 */
export async function reprice(
  exec: EngineExecutor,
  options: StressedOption[],
  moves: number,
  returnOf: (move: number, k: number) => number,
  shiftOf: (move: number) => number,
  signal?: AbortSignal,
): Promise<Float64Array> {
  const count = moves * options.length;
  const values = new Float64Array(count);
  const [slot, which, spot, volatility] = [new Int32Array(count), new Int32Array(count), new Float64Array(count), new Float64Array(count)];
  let live = 0;
  for (let m = 0; m < moves; m++) {
    const shift = shiftOf(m);
    options.forEach(({ priced }, k) => {
      const at = m * options.length + k;
      const terms = priced.stated.entry.option;
      const moved = priced.spot * (1 + returnOf(m, k));
      if (moved > 0) {
        slot[live] = at;
        which[live] = k;
        spot[live] = moved;
        volatility[live] = terms.volatility + shift;
        live++;
      } else values[at] = terms.type === 'put' ? terms.strike * Math.exp(-(terms.rate ?? 0) * priced.tau) : 0;
    });
  }
  const priced = options.map((o) => o.priced);
  const repriced = await repricedValues(exec, priced, which.subarray(0, live), spot.subarray(0, live), volatility.subarray(0, live), signal);
  for (let i = 0; i < live; i++) values[slot[i]!] = repriced[i]!;
  return values;
}

/** A scenario's outcome with its options repriced (`valuesAfter` per unit; none if uncovered), stock items in the book's listed order first. */
export function withOptions(
  outcome: StressOutcome,
  options: StressedOption[],
  valuesAfter: ArrayLike<number>,
  capital: number,
  stockItems: StressItem[],
): StressOutcome {
  let pnl = outcome.pnl;
  const items = options.map((o, k) => {
    const value = outcome.covered ? o.size * valuesAfter[k]! : o.size * o.valueNow;
    const itemPnl = outcome.covered ? o.size * (valuesAfter[k]! - o.valueNow) : 0;
    pnl += itemPnl;
    const underlying = outcome.items[o.column]!;
    return { symbol: optionLabel(o.priced.stated.entry), return: underlying.return, pnl: itemPnl, option: o.priced.stated.index, value };
  });
  return { ...outcome, pnl, pnl_pct: pnl / capital, items: [...stockItems, ...items] };
}

/**
 * The start row of the worst `horizon`-day window of a book with options in `h`: each window's
 * stock P&L plus its options fully repriced (volatility + `shift`, converted at the window's rate
 * move when foreign); null when the data spans fewer days.
 */
export async function worstStartWithOptions(
  exec: EngineExecutor,
  h: PriceHistory,
  exposures: Float64Array,
  options: StressedOption[],
  horizon: number,
  shift: number,
  signal?: AbortSignal,
): Promise<number | null> {
  const starts = h.prices.length - horizon;
  if (starts <= 0) return null;
  const windowReturn = (s: number, k: number) => {
    const column = options[k]!.column;
    return h.prices[s + horizon]![column]! / h.prices[s]![column]! - 1;
  };
  const values = await reprice(exec, options, starts, windowReturn, () => shift, signal);
  let worst: number | null = null;
  let worstPnl = Infinity;
  for (let s = 0; s < starts; s++) {
    const p0 = h.prices[s]!;
    const p1 = h.prices[s + horizon]!;
    let pnl = 0;
    for (let i = 0; i < exposures.length; i++) pnl += exposures[i]! * (p1[i]! / p0[i]! - 1);
    options.forEach((o, k) => {
      const v = values[s * options.length + k]!;
      const after = o.fx < 0 ? v : converted(v, h.prices[s + horizon]![o.fx]! / h.prices[s]![o.fx]! - 1);
      pnl += o.size * (after - o.valueNow);
    });
    if (pnl < worstPnl) {
      worstPnl = pnl;
      worst = s;
    }
  }
  return worst;
}
