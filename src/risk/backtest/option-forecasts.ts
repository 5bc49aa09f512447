import { validationError } from '../../contract/errors.js';
import { type ValuationMode } from '../../contract/option-schemas.js';
import { type EngineBook } from '../../engine/codec.js';
import { type Estimation } from '../../engine/codec.js';
import { type EngineExecutor } from '../../engine/ops.js';
import { runModel, type ModelInput } from '../engine-run.js';
import { type PhaseTiming } from '../phase-timing.js';
import { keepScenarios, runKept } from '../kept-scenarios.js';
import { duplicatedEstimation, optionGreeks, paddedEstimation, withOptionColumns, type PricedOption } from '../options/option-columns.js';
import { MAX_EXPIRY_YEARS, yearsToExpiry, type StatedOption } from '../options/option-positions.js';
import { OPTION_REPRICING_UNITS } from '../work-cost.js';
import { type PriceHistory } from '../price-history.js';

/** Work of a backtest's option revaluations: per forecast, each option on each scenario (none for parametric). */
export function optionBacktestUnits(forecasts: number, options: number, scenarios: number): number {
  return forecasts * options * scenarios * OPTION_REPRICING_UNITS;
}

/** A backtested book's options: their terms, underlying columns (of the history) and sizes. */
export interface BacktestOptions {
  stated: StatedOption[];
  columns: number[];
  /** A foreign underlying's columns (api.md §14): local price, its currency's rate, converted; else null. */
  conversions: ({ local: number; unit: number; converted: number } | null)[];
  /** quantity × multiplier of each. */
  sizes: number[];
  valuation: ValuationMode;
  capital: number;
}

/** τ of an option held on `date`: (expiry − that date) / 365, as §15 measures it from the last date. */
export function tauAt(o: StatedOption, date: string): number {
  return yearsToExpiry(o.entry.option.expiry, date);
}

/**
 * The options as held at `row`: spot the underlying's (local) price there, τ from that date; a
 * foreign underlying's conversion at that date's rate.
 */
export function pricedAt(opts: BacktestOptions, h: PriceHistory, row: number): PricedOption[] {
  const prices = h.prices[row]!;
  return opts.stated.map((stated, k) => {
    const c = opts.conversions[k];
    const priced = { stated, underlying: opts.columns[k]!, spot: prices[opts.columns[k]!]!, tau: tauAt(stated, h.dates[row]!) };
    return c ? { ...priced, fx: { unit: c.unit, converted: c.converted, rate: prices[c.unit]! } } : priced;
  });
}

/** Every forecast row's options within the pricer's reach: τ at the first row used at most 100 years. */
export function checkBacktestExpiries(opts: BacktestOptions, h: PriceHistory, firstRow: number): void {
  opts.stated.forEach((o) => {
    if (tauAt(o, h.dates[firstRow]!) > MAX_EXPIRY_YEARS) {
      throw validationError([
        {
          loc: ['body', 'positions', o.index, 'option', 'expiry'],
          msg: `expiry more than ${MAX_EXPIRY_YEARS} years after a backtested date`,
          type: 'value_error',
        },
      ]);
    }
  });
}

export interface OptionDay {
  exec: EngineExecutor;
  /** The 1-day model of the stock book (its one book: the stock exposures over the history's columns). */
  model: ModelInput;
  est: Estimation;
  exposures: Float64Array;
  deadline: number;
  signal: AbortSignal;
  timing: PhaseTiming;
}

/**
 * The forecast for row t of a book with options (api.md §9, §15): the options held at t − 1 (spot
 * S_{t−1}, τ from that date) revalued on the model's 1-day scenarios as `valuation` asks (parametric:
 * at their delta), and the realised P&L Σ e_i (P_t / P_{t−1} − 1) + Σ size (V(S_t, τ_t) − V(S_{t−1}, τ_{t−1})).
 */
export async function optionForecast(opts: BacktestOptions, h: PriceHistory, t: number, d: OptionDay): Promise<{ var: number; es: number; pnl: number }> {
  const before = pricedAt(opts, h, t - 1);
  const after = pricedAt(opts, h, t);
  const greeks = await optionGreeks(d.exec, [...before, ...after], d.signal);
  const m = before.length;
  const n = d.exposures.length;
  // In the reporting currency: a foreign option's value per unit times its rate (api.md §14).
  const rate = (o: PricedOption) => o.fx?.rate ?? 1;
  const deltaMoney = before.map((o, k) => opts.sizes[k]! * greeks[k]![1]! * o.spot * rate(o));
  const bookOf = (columns: number[]): EngineBook => ({
    capital: opts.capital,
    weights: Float64Array.from([...d.exposures, ...columns], (x) => x / opts.capital),
  });
  const policy = { maxBatches: 1, deadline: d.deadline };
  let figures;
  if (d.model.method === 'parametric_normal') {
    // Delta only: each option column moves as its underlying, a foreign one with its FX (option-calculate.ts).
    const input = { ...d.model, books: [bookOf(deltaMoney)] };
    const sources = before.map((o) => o.fx?.converted ?? o.underlying);
    figures = (await runModel(d.exec, input, duplicatedEstimation(d.est, sources), policy, d.signal, d.timing)).books[0]!;
  } else {
    const kept = await keepScenarios(d.exec, d.model, d.est, policy, d.signal);
    // One column per option, as asked: a backtest prices no delta twin.
    const columns = withOptionColumns(kept, n, 1, opts.valuation, before, false);
    const input = { ...d.model, books: [bookOf(opts.valuation === 'delta' ? deltaMoney : before.map((o, k) => opts.sizes[k]! * rate(o)))] };
    figures = (await runKept(d.exec, input, paddedEstimation(d.est, m), columns, policy, d.signal, d.timing)).books[0]!;
  }
  let pnl = 0;
  for (let i = 0; i < n; i++) pnl += d.exposures[i]! * (h.prices[t]![i]! / h.prices[t - 1]![i]! - 1);
  for (let k = 0; k < m; k++) pnl += opts.sizes[k]! * (greeks[m + k]![0]! * rate(after[k]!) - greeks[k]![0]! * rate(before[k]!));
  return { var: figures.valueAtRisk, es: figures.expectedShortfall, pnl };
}
