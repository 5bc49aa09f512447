// Backtest statistics (api.md §9) against independent numbers: the MATLAB `varbacktest` example and
// the Basel traffic-light tables as published, and test/engine/oracles/backtest_statistics.py
// (committed beside its output, backtest-statistics.json: erfc, χ², exact binomial CDFs, a clustered sequence).
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';
import { binomialCdf, chiSquareSurvival, erfc, normalPdf, normalQuantile } from '../../src/risk/numerics/distributions.js';
import {
  backtestStatistics,
  christoffersenIndependence,
  kupiecPof,
  trafficLight,
  transitionCounts,
  type TransitionCounts,
} from '../../src/risk/backtest/statistics.js';

interface Oracle {
  erfc: { x: number; erfc: number }[];
  chi2_survival: { x: number; dof: 1 | 2; sf: number }[];
  binomial_cdf: { n: number; p: number; x: number; cdf: number }[];
  clustered: {
    observations: number;
    confidence: number;
    exception_days: number[];
    kupiec: { lr: number; p_value: number };
    christoffersen_independence: TransitionCounts & { lr: number; p_value: number };
    conditional_coverage: { lr: number; p_value: number };
  };
}
const oracle = JSON.parse(readFileSync(path.join(ROOT, 'test/engine/oracles/backtest-statistics.json'), 'utf8')) as Oracle;

const close = (t: Test, got: number, want: number, tol: number, what: string) => t.ok(Math.abs(got - want) <= tol, `${what}: ${got} vs ${want} (±${tol})`);
const relClose = (t: Test, got: number, want: number, tol: number, what: string) =>
  t.ok(got === want || Math.abs(got / want - 1) <= tol, `${what}: ${got} vs ${want} (rel ${tol})`);
/** A series whose exceptions are exactly the given hits (var 1, pnl −2 on an exception, 0 otherwise). */
const series = (hits: boolean[]) => ({ pnl: hits.map((h) => (h ? -2 : 0)), var: hits.map(() => 1) });
const daysToHits = (n: number, days: number[]) => Array.from({ length: n }, (_, i) => days.includes(i));

t.test('erfc to 1e-15 relative against the decimal series, and its special values', async (t) => {
  let worst = 0;
  for (const { x, erfc: want } of oracle.erfc) worst = Math.max(worst, Math.abs(erfc(x) / want - 1));
  t.ok(worst <= 1e-15, `worst relative error ${worst}`);
  t.equal(erfc(0), 1);
  t.equal(erfc(Infinity), 0);
  t.equal(erfc(-Infinity), 2);
  t.equal(erfc(30), 0, 'below the smallest double');
  t.ok(Number.isNaN(erfc(NaN)));
});

t.test('χ² survival (1 and 2 dof), normal quantile and density', async (t) => {
  for (const { x, dof, sf } of oracle.chi2_survival) relClose(t, chiSquareSurvival(x, dof), sf, 2e-15, `Q(${x}; ${dof})`);
  t.equal(chiSquareSurvival(0, 1), 1);
  t.equal(chiSquareSurvival(0, 2), 1);
  // Published closed forms (10 significant digits): z_c and φ(z_c)/(1 − c).
  for (const [c, z, es] of [
    [0.95, 1.644853627, 2.0627128075],
    [0.975, 1.9599639845, 2.3378027922],
    [0.99, 2.326347874, 2.6652142203],
  ] as const) {
    relClose(t, normalQuantile(c), z, 1e-10, `z at ${c}`);
    relClose(t, normalPdf(normalQuantile(c)) / (1 - c), es, 1e-10, `ES/σ at ${c}`);
  }
  // Round trip through Φ(z) = erfc(−z/√2)/2 across all three AS 241 regions.
  for (const p of [1e-300, 1e-20, 1e-8, 0.001, 0.025, 0.07, 0.2, 0.5, 0.8, 0.93, 0.999]) {
    relClose(t, erfc(-normalQuantile(p) / Math.SQRT2) / 2, p, 1e-13, `Φ(Φ⁻¹(${p}))`);
  }
  t.equal(normalQuantile(0), -Infinity);
  t.ok(Number.isNaN(normalQuantile(1.5)));
});

t.test('binomial CDF against exact rational sums, N up to 2,500', async (t) => {
  for (const { n, p, x, cdf } of oracle.binomial_cdf) relClose(t, binomialCdf(x, n, p), cdf, 1e-13, `F(${x}; ${n}, ${p})`);
  t.equal(binomialCdf(-1, 10, 0.1), 0);
  t.equal(binomialCdf(10, 10, 0.1), 1);
  t.equal(binomialCdf(0, 10, 0), 1);
  t.equal(binomialCdf(9, 10, 1), 0);
  // N = 250, p = 0.01, x = 0..10 (published binomial table, 5 decimals)
  const published = [0.08106, 0.28575, 0.54317, 0.75812, 0.89219, 0.95882, 0.9863, 0.99597, 0.99894, 0.99975, 0.99995];
  published.forEach((f, x) => close(t, binomialCdf(x, 250, 1 - 0.99), f, 5e-6, `F(${x}; 250, 0.01)`));
});

t.test('MATLAB varbacktest example: N = 1043, 57 exceptions at 95 %, n00 932, n01 53, n10 53, n11 4', async (t) => {
  // 53 runs of exceptions, the first 4 two days long, spaced 19 days apart: exactly the published counts.
  const days: number[] = [];
  for (let r = 0; r < 53; r++) days.push(10 + 19 * r, ...(r < 4 ? [11 + 19 * r] : []));
  const s = backtestStatistics({ ...series(daysToHits(1043, days)), confidence: 0.95 });
  t.same([s.observations, s.exceptions], [1043, 57]);
  const ind = s.christoffersen_independence;
  t.same([ind.n00, ind.n01, ind.n10, ind.n11], [932, 53, 53, 4]);
  close(t, s.expected_exceptions, 52.15, 1e-9, 'expected exceptions');
  close(t, s.kupiec.lr, 0.46147, 5e-6, 'POF LR');
  close(t, s.kupiec.p_value, 0.49694, 5e-6, 'POF p');
  close(t, ind.lr, 0.25866, 5e-6, 'CCI LR');
  close(t, ind.p_value, 0.61104, 5e-6, 'CCI p');
  close(t, s.conditional_coverage.lr, 0.72013, 5e-6, 'CC LR');
  close(t, s.conditional_coverage.p_value, 0.69763, 5e-6, 'CC p');
  t.equal(s.traffic_light.zone, 'green');
  close(t, s.traffic_light.cumulative_probability, 0.77913, 5e-6, 'TL cumulative probability F(57)');
  close(t, 1 - binomialCdf(56, 1043, 0.05), 0.26396, 5e-6, 'TL type I = 1 − F(56)');
  t.same([s.traffic_light.basel_multiplier, s.traffic_light.frtb_multiplier], [null, null], 'no multipliers off N = 250, 99 %');
  t.equal(s.es_test, null);
  // The same from the counts alone.
  close(t, christoffersenIndependence({ n00: 932, n01: 53, n10: 53, n11: 4 }).lr, 0.25866, 5e-6, 'CCI LR from counts');
  // Second case: 99 %, 17 exceptions in 1043.
  const second = kupiecPof(1043, 17, 0.99);
  close(t, second.lr, 3.51181286, 5e-9, 'POF LR at 99 %');
  close(t, second.p_value, 0.06093275, 5e-9, 'POF p at 99 %');
});

t.test('clustered, asymmetric exceptions: n_ij from t − 1 to t, not the other way', async (t) => {
  const o = oracle.clustered;
  const hits = daysToHits(o.observations, o.exception_days);
  const s = backtestStatistics({ ...series(hits), confidence: o.confidence });
  // Independent here: count t − 1 → t by hand and apply the formula.
  const n = [
    [0, 0],
    [0, 0],
  ];
  for (let i = 1; i < hits.length; i++) n[+hits[i - 1]!]![+hits[i]!]!++;
  const [[n00, n01], [n10, n11]] = n as [[number, number], [number, number]];
  t.same([n00, n01, n10, n11], [236, 5, 4, 4], 'the sequence is asymmetric');
  const xl = (k: number, y: number) => (k === 0 ? 0 : k * Math.log(y));
  const lrOf = (a: number, b: number, c: number, d: number) => {
    const pi = (b + d) / (a + b + c + d);
    return -2 * (xl(a + c, 1 - pi) + xl(b + d, pi)) + 2 * (xl(a, a / (a + b)) + xl(b, b / (a + b)) + xl(c, c / (c + d)) + xl(d, d / (c + d)));
  };
  const ind = s.christoffersen_independence;
  t.same([ind.n00, ind.n01, ind.n10, ind.n11], [n00, n01, n10, n11]);
  relClose(t, ind.lr, lrOf(n00, n01, n10, n11), 1e-12, 'CCI LR by the formula');
  // The LR is the G statistic of the 2×2 table, unchanged by transposing it: only n01 and n10 tell
  // a swapped direction (t → t − 1) apart, and they are asserted above (5 ≠ 4).
  relClose(t, lrOf(n00, n10, n01, n11), ind.lr, 1e-12, 'transposed counts, same LR');
  relClose(t, ind.lr, o.christoffersen_independence.lr, 1e-12, 'CCI LR (oracle)');
  relClose(t, ind.p_value, o.christoffersen_independence.p_value, 1e-12, 'CCI p (oracle)');
  relClose(t, s.kupiec.lr, o.kupiec.lr, 1e-12, 'POF LR (oracle)');
  relClose(t, s.kupiec.p_value, o.kupiec.p_value, 1e-12, 'POF p (oracle)');
  relClose(t, s.conditional_coverage.lr, o.conditional_coverage.lr, 1e-12, 'CC LR (oracle)');
  relClose(t, s.conditional_coverage.p_value, o.conditional_coverage.p_value, 1e-12, 'CC p (oracle)');
  t.same(transitionCounts([true, false, false]), { n00: 1, n01: 0, n10: 1, n11: 0 });
});

t.test('traffic light: Basel zones at 99 % for N = 250, 500, 1000 use F(x), not F(x − 1)', async (t) => {
  const tables: [number, number, number][] = [
    [250, 4, 9],
    [500, 8, 14],
    [1000, 14, 23],
  ];
  for (const [n, lastGreen, lastYellow] of tables) {
    const got: string[] = [];
    const want: string[] = [];
    for (let x = 0; x <= lastYellow + 1; x++) {
      got.push(trafficLight(n, x, 0.99).zone);
      want.push(x <= lastGreen ? 'green' : x <= lastYellow ? 'yellow' : 'red');
    }
    t.same(got, want, `N = ${n}: green 0–${lastGreen}, yellow ${lastGreen + 1}–${lastYellow}, red ≥ ${lastYellow + 1}`);
    t.ok(binomialCdf(lastGreen, n, 0.01) < 0.95 && binomialCdf(lastGreen + 1, n, 0.01) >= 0.95, `N = ${n}: the yellow boundary lies on F(x)`);
  }
  t.equal(trafficLight(250, 30, 0.99).zone, 'red');
  t.equal(trafficLight(250, 250, 0.99).cumulative_probability, 1);
});

t.test('multipliers for every x at N = 250, 99 %; null elsewhere', async (t) => {
  const basel = [3, 3, 3, 3, 3, 3.4, 3.5, 3.65, 3.75, 3.85, 4, 4, 4];
  const frtb = [1.5, 1.5, 1.5, 1.5, 1.5, 1.7, 1.76, 1.83, 1.88, 1.92, 2, 2, 2];
  for (let x = 0; x < basel.length; x++) {
    const tl = trafficLight(250, x, 0.99);
    t.same([tl.basel_multiplier, tl.frtb_multiplier], [basel[x], frtb[x]], `x = ${x}`);
  }
  t.same(trafficLight(250, 250, 0.99).basel_multiplier, 4);
  for (const [n, c] of [
    [251, 0.99],
    [250, 0.975],
    [500, 0.99],
  ] as const) {
    const tl = trafficLight(n, 3, c);
    t.same([tl.basel_multiplier, tl.frtb_multiplier], [null, null], `N = ${n}, c = ${c}`);
  }
});

t.test('degenerate inputs give finite numbers', async (t) => {
  const cases: [string, boolean[]][] = [
    ['no exceptions', Array<boolean>(250).fill(false)],
    ['every day an exception', Array<boolean>(250).fill(true)],
    ['N = 1, no exception', [false]],
    ['N = 1, an exception', [true]],
    ['N = 2, none', [false, false]],
    ['N = 2, last', [false, true]],
    ['N = 2, first', [true, false]],
    ['N = 2, both', [true, true]],
    ['only the last day', [...Array<boolean>(9).fill(false), true]],
  ];
  for (const [name, hits] of cases) {
    const s = backtestStatistics({ ...series(hits), es: hits.map(() => 1.5), confidence: 0.99, esTest: { seed: 7, simulations: 200 } });
    const tests = [s.kupiec, s.christoffersen_independence, s.conditional_coverage];
    const numbers = [...tests.flatMap((r) => [r.lr, r.p_value]), s.traffic_light.cumulative_probability, s.es_test!.z2, s.es_test!.p_value];
    t.ok(
      numbers.every((v) => Number.isFinite(v)),
      `${name}: ${numbers.join(', ')}`,
    );
    t.ok(
      tests.every((r) => r.lr >= 0 && r.p_value >= 0 && r.p_value <= 1),
      `${name}: LR ≥ 0, p in [0, 1]`,
    );
  }
  const none = kupiecPof(250, 0, 0.99);
  relClose(t, none.lr, -2 * 250 * Math.log(0.99), 1e-14, 'POF LR with no exception = −2N ln c');
  t.same(christoffersenIndependence({ n00: 0, n01: 0, n10: 0, n11: 0 }), { lr: 0, p_value: 1, n00: 0, n01: 0, n10: 0, n11: 0 });
  t.throws(() => backtestStatistics({ pnl: [1, 2], var: [1], confidence: 0.99 }), RangeError);
  t.throws(() => kupiecPof(10, 1, 1), RangeError);
  t.throws(() => backtestStatistics({ pnl: [NaN], var: [1], confidence: 0.99 }), RangeError);
  t.throws(() => backtestStatistics({ pnl: [1], var: [1], es: [1], confidence: 0.99 }), RangeError, 'es without a seed');
});
