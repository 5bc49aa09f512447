import { ABI } from '../../engine/abi.js';
import { checkStatus, type Estimation } from '../../engine/codec.js';
import { type EngineExecutor } from '../../engine/ops.js';
import { type ValuationMode } from '../../contract/option-schemas.js';
import { type KeptScenarios } from '../kept-scenarios.js';
import { type StatedOption } from './option-positions.js';
import { sensitivityFields, type PricedSensitivity } from './sensitivities.js';

const VALUATION_CODES: Record<ValuationMode, number> = { full: ABI.VALUATION_FULL, delta_gamma: ABI.VALUATION_DELTA_GAMMA, delta: ABI.VALUATION_DELTA };

/** An option as the engine reads it: its underlying's column, spot and τ. */
export interface PricedOption {
  stated: StatedOption;
  /** The column of its underlying's local return (full and delta_gamma valuation). */
  underlying: number;
  spot: number;
  tau: number;
  /**
   * A foreign underlying (api.md §14): the column of its conversion's unit e^{F} − 1, the column
   * of its return R + F (delta valuation: a foreign stock's), and the last rate into the reporting
   * currency; absent in the reporting currency.
   */
  fx?: { unit: number; converted: number; rate: number };
}

/** The engine's words of `o` in `valuation` (ABI.OPTION_FIELDS). */
function fields(o: PricedOption, valuation: ValuationMode): number[] {
  const t = o.stated.entry.option;
  // At its delta a foreign option moves as its underlying's R + F, exactly a foreign stock's column.
  const linear = valuation === 'delta' && o.fx !== undefined;
  return [
    linear ? o.fx!.converted : o.underlying,
    VALUATION_CODES[valuation],
    t.type === 'call' ? ABI.OPTION_CALL : ABI.OPTION_PUT,
    (t.model ?? 'black_scholes') === 'black76' ? ABI.MODEL_BLACK76 : ABI.MODEL_BLACK_SCHOLES,
    o.spot,
    t.strike,
    t.volatility,
    t.rate ?? 0,
    t.dividend_yield ?? 0,
    o.tau,
    o.fx === undefined || linear ? ABI.OPTION_NO_FX : o.fx.unit,
  ];
}

/** Where an option's spot and volatility sit among its words (`fields`). */
const SPOT_WORD = 4;
const VOLATILITY_WORD = 6;
/** OP_OPTION_GREEKS answers two header words, then price, Δ, Γ, vega and θ per option. */
const GREEKS = 5;

/** OP_OPTION_GREEKS over `count` options, the words of option i written by `write` at `at`. */
async function runGreeks(
  exec: EngineExecutor,
  count: number,
  write: (input: Float64Array, at: number, i: number) => void,
  signal?: AbortSignal,
): Promise<Float64Array> {
  const input = new Float64Array(1 + ABI.OPTION_FIELDS * count);
  input[0] = count;
  for (let i = 0; i < count; i++) write(input, 1 + ABI.OPTION_FIELDS * i, i);
  return checkStatus((await exec.run(ABI.OP_OPTION_GREEKS, input, signal)).output);
}

/** Per unit in its own currency, now: no conversion (the engine checks no fx unit against assets here). */
const greeksWords = (o: PricedOption) => fields({ ...o, fx: undefined }, 'full');

/** Price, Δ, Γ, vega, θ per unit of each option now (OP_OPTION_GREEKS). */
export async function optionGreeks(exec: EngineExecutor, options: PricedOption[], signal?: AbortSignal): Promise<Float64Array[]> {
  const out = await runGreeks(exec, options.length, (input, at, i) => input.set(greeksWords(options[i]!), at), signal);
  return options.map((_, i) => out.subarray(2 + GREEKS * i, 2 + GREEKS * (i + 1)));
}

/**
 * Prices per unit of options moved: repricing j is option `which[j]` at `spot[j]` with volatility
 * `volatility[j]`, its other terms as now (OP_OPTION_GREEKS, at most ABI.MAX_OPTIONS a call). The
 * words are written straight into each call's input: a stress search asks millions of these.
 */
export async function repricedValues(
  exec: EngineExecutor,
  options: PricedOption[],
  which: Int32Array,
  spot: Float64Array,
  volatility: Float64Array,
  signal?: AbortSignal,
): Promise<Float64Array> {
  const words = options.map(greeksWords);
  const values = new Float64Array(which.length);
  for (let from = 0; from < which.length; from += ABI.MAX_OPTIONS) {
    const count = Math.min(ABI.MAX_OPTIONS, which.length - from);
    const write = (input: Float64Array, at: number, i: number) => {
      input.set(words[which[from + i]!]!, at);
      input[at + SPOT_WORD] = spot[from + i]!;
      input[at + VOLATILITY_WORD] = volatility[from + i]!;
    };
    const out = await runGreeks(exec, count, write, signal);
    for (let i = 0; i < count; i++) values[from + i] = out[2 + GREEKS * i]!;
  }
  return values;
}

/**
 * The kept units with, per block, one column per option in `valuation` and then (with `twin`, the
 * default) one per option at its delta: the book and its delta twin on the same scenarios. The
 * columns are not written here: `runKept` prices each block's where the block is priced
 * (OP_SIMULATE_OPTIONS, the figures of OP_OPTION_UNITS' columns bit for bit), so no answer of up to
 * 10⁸ words is written and read back.
 */
export function withOptionColumns(
  kept: KeptScenarios,
  assets: number,
  horizon: number,
  valuation: ValuationMode,
  options: PricedOption[],
  twin = true,
  given: PricedSensitivity[] = [],
): KeptScenarios {
  // Columns: the options then the sensitivities as asked, then (twin) each at its delta.
  const asked = [...options.flatMap((o) => fields(o, valuation)), ...given.flatMap((g) => sensitivityFields(g, valuation))];
  const atDelta = [...options.flatMap((o) => fields(o, 'delta')), ...given.flatMap((g) => sensitivityFields(g, 'delta'))];
  const words = [...asked, ...(twin ? atDelta : [])];
  const columns = options.length + given.length;
  return { ...kept, options: Float64Array.from([assets, horizon, (twin ? 2 : 1) * columns, ...words]) };
}

/**
 * The estimation over the assets and `extra` option columns, for pricing kept units only: the
 * columns draw nothing (zero mean, zero rows of loadings; historical returns of zero).
 */
export function paddedEstimation(est: Estimation, extra: number): Estimation {
  const n = est.mean.length;
  const wide = n + extra;
  const pad = (xs: Float64Array) => {
    const out = new Float64Array(wide);
    out.set(xs);
    return out;
  };
  // The triangular factor read as n×n loadings; loadings keep their columns.
  const columns = est.factorColumns === ABI.FACTOR_TRIANGULAR ? n : est.factorColumns;
  const factor = new Float64Array(wide * columns);
  factor.set(est.factor.subarray(0, n * columns));
  const rows = est.returns.length / n;
  const returns = new Float64Array(rows * wide);
  for (let r = 0; r < rows; r++) returns.set(est.returns.subarray(r * n, (r + 1) * n), r * wide);
  return {
    ...est,
    mean: pad(est.mean),
    sampleMean: pad(est.sampleMean),
    volatility: pad(est.volatility),
    covariance: new Float64Array(0),
    factor: est.factor.length === 0 ? est.factor : factor,
    factorColumns: est.factor.length === 0 ? est.factorColumns : columns,
    returns: est.returns.length === 0 ? est.returns : returns,
  };
}

/**
 * The estimation with column `sources[k]` repeated as column n + k (the parametric method's delta
 * columns: an option at its delta moves as its underlying, mean, Σ and all).
 */
export function duplicatedEstimation(est: Estimation, sources: number[]): Estimation {
  const n = est.mean.length;
  const from = [...Array.from({ length: n }, (_, i) => i), ...sources];
  const wide = from.length;
  const pick = (xs: Float64Array) => Float64Array.from(from, (i) => xs[i]!);
  const triangular = est.factorColumns === ABI.FACTOR_TRIANGULAR;
  const covariance = triangular
    ? Float64Array.from({ length: wide * wide }, (_, k) => est.covariance[from[Math.floor(k / wide)]! * n + from[k % wide]!]!)
    : new Float64Array(0);
  const columns = est.factorColumns;
  const factor = triangular
    ? est.factor
    : Float64Array.from({ length: wide * columns }, (_, k) => est.factor[from[Math.floor(k / columns)]! * columns + (k % columns)]!);
  return { ...est, mean: pick(est.mean), sampleMean: pick(est.sampleMean), volatility: pick(est.volatility), covariance, factor };
}
