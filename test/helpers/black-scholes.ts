// Black–Scholes–Merton written out from its textbook formula, independent of the engine's pricer
// (Φ from the TypeScript erfc, natural logs and exponentials of the platform): the oracle of the
// option tests. Black-76 is the case q = r.
import { erfc } from '../../src/risk/numerics/distributions.js';

export type OptionType = 'call' | 'put';

export const Phi = (x: number) => 0.5 * erfc(-x / Math.SQRT2);

function d1d2(s: number, k: number, r: number, vol: number, tau: number, q: number): [number, number] {
  const v = vol * Math.sqrt(tau);
  const d1 = (Math.log(s / k) + (r - q + (vol * vol) / 2) * tau) / v;
  return [d1, d1 - v];
}

/** Price per unit at spot s, strike k, rate r, volatility vol, τ years, dividend yield q; intrinsic at τ ≤ 0. */
export function blackScholes(type: OptionType, s: number, k: number, r: number, vol: number, tau: number, q = 0): number {
  if (tau <= 0) return Math.max(type === 'call' ? s - k : k - s, 0);
  const [d1, d2] = d1d2(s, k, r, vol, tau, q);
  const f = s * Math.exp(-q * tau);
  const d = k * Math.exp(-r * tau);
  return type === 'call' ? f * Phi(d1) - d * Phi(d2) : d * Phi(-d2) - f * Phi(-d1);
}

/** ∂V/∂S per unit; 0 at τ ≤ 0. */
export function blackScholesDelta(type: OptionType, s: number, k: number, r: number, vol: number, tau: number, q = 0): number {
  if (tau <= 0) return 0;
  const [d1] = d1d2(s, k, r, vol, tau, q);
  return Math.exp(-q * tau) * (type === 'call' ? Phi(d1) : Phi(d1) - 1);
}

const density = (x: number) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);

/** ∂²V/∂S² per unit, the same for a call and a put; 0 at τ ≤ 0. */
export function blackScholesGamma(s: number, k: number, r: number, vol: number, tau: number, q = 0): number {
  if (tau <= 0) return 0;
  const [d1] = d1d2(s, k, r, vol, tau, q);
  return (Math.exp(-q * tau) * density(d1)) / (s * vol * Math.sqrt(tau));
}

/** ∂V/∂t per unit and per year of calendar time (minus ∂V/∂τ); 0 at τ ≤ 0. */
export function blackScholesTheta(type: OptionType, s: number, k: number, r: number, vol: number, tau: number, q = 0): number {
  if (tau <= 0) return 0;
  const [d1, d2] = d1d2(s, k, r, vol, tau, q);
  const f = s * Math.exp(-q * tau);
  const d = k * Math.exp(-r * tau);
  const decay = (-f * density(d1) * vol) / (2 * Math.sqrt(tau));
  return type === 'call' ? decay - r * d * Phi(d2) + q * f * Phi(d1) : decay + r * d * Phi(-d2) - q * f * Phi(-d1);
}
