import { ABI } from '../../engine/abi.js';
import { type Estimation } from '../../engine/codec.js';
import { type Instrument } from './fx-plan.js';

/** Σ over an instrument's terms of sign × row[k], for every k of a row width, in term order. */
function combineRows(terms: Instrument['terms'], row: (factor: number) => Float64Array, width: number): Float64Array {
  const out = new Float64Array(width);
  for (const [k, sign] of terms) {
    const r = row(k);
    for (let j = 0; j < width; j++) out[j] = sign === 1 ? out[j]! + r[j]! : out[j]! - r[j]!;
  }
  return out;
}

/** One value per instrument: Σ sign × x[k] over its terms, in term order. */
function combine(terms: Instrument['terms'], x: Float64Array): number {
  let sum = 0;
  for (const [k, sign] of terms) sum = sign === 1 ? sum + x[k]! : sum - x[k]!;
  return sum;
}

/**
 * The factor model of `est` (over the dataset columns a multi-currency book needs) seen through
 * its instruments, each a sum of factors (a foreign stock's return and its FX legs'): means and
 * returns add up, and the factor's rows too, as loadings over the factors' normals — so the
 * engine draws every factor jointly and prices e·(e^{R+F} − 1), and a run with other instruments
 * over the same factors draws the very same normals (common random numbers).
 */
export function instrumentEstimation(est: Estimation, instruments: Instrument[]): Estimation {
  const n = est.mean.length;
  // Every instrument its own factor (a book in the reporting currency): the model as it is, so the
  // figures are those of a single-currency dataset to the bit (api.md §14's identity).
  if (instruments.length === n && instruments.every((ins, i) => ins.terms.length === 1 && ins.terms[0]![0] === i && ins.terms[0]![1] === 1)) return est;
  const width = est.factorColumns === ABI.FACTOR_TRIANGULAR ? n : est.factorColumns;
  const factorRow = (k: number) => est.factor.subarray(k * width, (k + 1) * width);
  const m = instruments.length;
  const factor = new Float64Array(m * width);
  const volatility = new Float64Array(m);
  instruments.forEach((ins, i) => {
    const row = combineRows(ins.terms, factorRow, width);
    factor.set(row, i * width);
    let variance = 0;
    for (const x of row) variance += x * x;
    volatility[i] = Math.sqrt(variance);
  });
  const observations = est.observations;
  const returns = new Float64Array(observations * m);
  for (let t = 0; t < observations; t++) {
    const day = est.returns.subarray(t * n, (t + 1) * n);
    instruments.forEach((ins, i) => (returns[t * m + i] = combine(ins.terms, day)));
  }
  return {
    ...est,
    mean: Float64Array.from(instruments, (ins) => combine(ins.terms, est.mean)),
    sampleMean: Float64Array.from(instruments, (ins) => combine(ins.terms, est.sampleMean)),
    covariance: new Float64Array(0),
    factor,
    // Loadings over the factors' normals: never triangular (an instrument may sum later factors).
    factorColumns: width,
    factorsSampled: est.factorColumns,
    volatility,
    returns,
  };
}
