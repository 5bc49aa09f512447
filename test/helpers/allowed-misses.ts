/**
 * The largest number of misses (checks outside their tolerance) that a correct engine reaches with
 * probability ≥ 0.001, when each of `checks` independent checks misses with probability `rate`
 * (the binomial tail). Tests that compare estimates with exact values count misses against it.
 */
export function allowedMisses(checks: number, rate: number): number {
  let tail = 1;
  let term = (1 - rate) ** checks;
  for (let m = 0; m <= checks; m++) {
    tail -= term;
    if (tail < 0.001) return m;
    term *= ((checks - m) / (m + 1)) * (rate / (1 - rate));
  }
  return checks;
}
