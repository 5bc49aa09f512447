// The Acerbi–Székely Z2 test of an ES forecast series (api.md §9, oracles.md) and its p-value by
// simulation under the model, reproducible from an integer seed.
//
// Z2 = Σ_t pnl_t·I_t / (N·(1 − c)·ES_t) + 1, I_t = [pnl_t < −VaR_t]. E[Z2] = 0 when the forecasts are
// right; Z2 < 0 says ES (and/or VaR) was too small. The p-value is one-sided: the share of the
// simulated Z2 that are ≤ the observed one (ties count), without a +1 correction.
//
// Default model (normal): day t's P&L is N(μ_t, σ_t²) with the VaR_t and ES_t it forecast at c, i.e.
// z = Φ⁻¹(c), σ_t = (ES_t − VaR_t)/(φ(z)/(1 − c) − z), μ_t = z·σ_t − VaR_t (needs ES_t ≥ VaR_t), the
// days independent. A caller with another model passes a sampler instead. Either way simulation s,
// day t consumes the next uniform(s) of one xoshiro128** stream seeded by the seed, s = 0..M−1 outer,
// t = 0..N−1 inner, so the same inputs and seed give the same p-value bit for bit.
import { type Static } from '@sinclair/typebox';
import { type BacktestFigures } from '../../contract/backtest-schemas.js';
import { normalPdf, normalQuantile } from '../numerics/distributions.js';
import { uniformSource } from '../numerics/uniform-source.js';

export const DEFAULT_Z2_SIMULATIONS = 10_000;

export interface NormalDayModel {
  mu: number;
  sigma: number;
}

/** Draws one P&L for day t (0-based) under the model, from `uniform` (independent draws in (0, 1)) only. */
export type DaySampler = (day: number, uniform: () => number) => number;

export interface Z2SimulationOptions {
  /** Whole number in 0..2^53 − 1. */
  seed: number;
  /** Number of simulated series M (default 10,000). */
  simulations?: number;
  /** Model to simulate under; the normal model implied by each day's VaR and ES when absent. */
  sampler?: DaySampler;
}

/** The Z2 test's figures, typed by the response schema that documents them. */
export type EsBacktest = NonNullable<Static<typeof BacktestFigures>['es_test']>;

/** μ and σ of the normal distribution whose VaR and ES at c (positive loss amounts) are the given. */
export function normalModelFromVarEs(valueAtRisk: number, expectedShortfall: number, confidence: number): NormalDayModel {
  if (!(expectedShortfall >= valueAtRisk)) {
    throw new RangeError(`no normal distribution has ES ${String(expectedShortfall)} below VaR ${String(valueAtRisk)}`);
  }
  const z = normalQuantile(confidence);
  const sigma = (expectedShortfall - valueAtRisk) / (normalPdf(z) / (1 - confidence) - z);
  return { mu: z * sigma - valueAtRisk, sigma };
}

function checkSeries(pnl: readonly number[], valueAtRisk: readonly number[], expectedShortfall: readonly number[], confidence: number): void {
  if (!(Number.isFinite(confidence) && confidence > 0 && confidence < 1)) throw new RangeError(`confidence must lie in (0, 1), got ${String(confidence)}`);
  const n = pnl.length;
  if (n < 1) throw new RangeError('Z2 needs at least one day');
  if (valueAtRisk.length !== n || expectedShortfall.length !== n) {
    throw new RangeError(`pnl, var and es must have one value per day (${n}, ${valueAtRisk.length}, ${expectedShortfall.length})`);
  }
  for (let t = 0; t < n; t++) {
    if (!Number.isFinite(pnl[t]!) || !Number.isFinite(valueAtRisk[t]!)) throw new RangeError(`day ${t}: pnl and var must be finite`);
    if (!(Number.isFinite(expectedShortfall[t]!) && expectedShortfall[t]! > 0)) throw new RangeError(`day ${t}: es must be a finite positive loss amount`);
  }
}

/** Z2 = Σ_t pnl_t·I_t / (N·(1 − c)·ES_t) + 1 with I_t = [pnl_t < −var_t]. */
export function acerbiSzekelyZ2(pnl: readonly number[], valueAtRisk: readonly number[], expectedShortfall: readonly number[], confidence: number): number {
  checkSeries(pnl, valueAtRisk, expectedShortfall, confidence);
  const scale = pnl.length * (1 - confidence);
  let sum = 0;
  for (let t = 0; t < pnl.length; t++) {
    const x = pnl[t]!;
    if (x < -valueAtRisk[t]!) sum += x / (scale * expectedShortfall[t]!);
  }
  return sum + 1;
}

/**
 * P(Z2_sim ≤ observed) estimated from M series simulated under the model (see the file header).
 * Under the normal model a draw u ≥ 2(1 − c) cannot be an exception (Φ⁻¹ is increasing), so its
 * quantile is not computed; it still consumes its uniform, so the stream is that of a plain loop.
 */
export function z2SimulatedPValue(
  observed: number,
  valueAtRisk: readonly number[],
  expectedShortfall: readonly number[],
  confidence: number,
  options: Z2SimulationOptions,
): number {
  checkSeries(valueAtRisk, valueAtRisk, expectedShortfall, confidence);
  const simulations = options.simulations ?? DEFAULT_Z2_SIMULATIONS;
  if (!Number.isSafeInteger(simulations) || simulations < 1) throw new RangeError(`simulations must be a whole number ≥ 1, got ${String(simulations)}`);
  const n = valueAtRisk.length;
  const uniform = uniformSource(options.seed);
  const scale = n * (1 - confidence);
  const denominators = expectedShortfall.map((es) => scale * es);
  const sampler = options.sampler;
  const models = sampler ? [] : valueAtRisk.map((v, t) => normalModelFromVarEs(v, expectedShortfall[t]!, confidence));
  const tail = Math.min(1, 2 * (1 - confidence));
  let atOrBelow = 0;
  for (let s = 0; s < simulations; s++) {
    let sum = 0;
    for (let t = 0; t < n; t++) {
      let x: number;
      if (sampler) {
        x = sampler(t, uniform);
        if (!Number.isFinite(x)) throw new RangeError(`the sampler drew ${String(x)} for day ${t}`);
      } else {
        const u = uniform();
        if (u >= tail) continue;
        const m = models[t]!;
        x = m.mu + m.sigma * normalQuantile(u);
      }
      if (x < -valueAtRisk[t]!) sum += x / denominators[t]!;
    }
    if (sum + 1 <= observed) atOrBelow++;
  }
  return atOrBelow / simulations;
}

/** Z2 of the realised series and its simulated p-value. */
export function esBacktest(
  pnl: readonly number[],
  valueAtRisk: readonly number[],
  expectedShortfall: readonly number[],
  confidence: number,
  options: Z2SimulationOptions,
): EsBacktest {
  const z2 = acerbiSzekelyZ2(pnl, valueAtRisk, expectedShortfall, confidence);
  const simulations = options.simulations ?? DEFAULT_Z2_SIMULATIONS;
  return {
    z2,
    p_value: z2SimulatedPValue(z2, valueAtRisk, expectedShortfall, confidence, options),
    simulations,
    seed: options.seed,
    model: options.sampler ? 'sampler' : 'normal',
  };
}
