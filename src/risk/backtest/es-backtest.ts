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
import { normalPdf, normalQuantile } from './distributions.js';

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

export interface EsBacktest {
  z2: number;
  p_value: number;
  simulations: number;
  seed: number;
  model: 'normal' | 'sampler';
}

/** fmix32 of MurmurHash3: a bijection of 32-bit words that spreads every input bit. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * Uniform draws in the open interval (0, 1) with 53 random bits each, from xoshiro128** (Blackman and
 * Vigna) whose 128-bit state is derived from the seed's low and high 32 bits.
 */
export function uniformSource(seed: number): () => number {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a whole number in 0..2^53 − 1, got ${String(seed)}`);
  let lo = seed >>> 0;
  let hi = Math.floor(seed / 4294967296) >>> 0;
  const s = new Uint32Array(4);
  for (let i = 0; i < 4; i++) {
    lo = (lo + 0x9e3779b9) >>> 0;
    hi = (hi + 0x6a09e667) >>> 0;
    s[i] = mix32(lo ^ mix32(hi));
  }
  if ((s[0]! | s[1]! | s[2]! | s[3]!) === 0) s[0] = 1;
  let a = s[0]!;
  let b = s[1]!;
  let c = s[2]!;
  let d = s[3]!;
  const next = (): number => {
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return r;
  };
  return () => {
    const u = ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992;
    return u === 0 ? 2 ** -54 : u;
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

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
