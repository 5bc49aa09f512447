// The differential property every valid drawn request is held to (calculate-properties.test.ts):
// the four builds byte-identical, the book listed otherwise byte-identical, a refusal only for a
// documented reason, every number finite, the compiled serializer, Euler sums, means between their
// extremes, another seed other figures; with the tally the tests read their coverage from.
import { allFinite } from '../../src/risk/failures.js';
import { type CalculateRequest } from '../../src/contract/schemas.js';
import { serializeCalculate } from '../../src/http/serializers.js';
import { listingFree, relisted } from './listing-variants.js';
import { comparable, outcomeOf, type Build, type Outcome } from './four-builds.js';
import { sameContent } from './same-json.js';

/** Issue types of a valid request's VALIDATION_ERROR: figures beyond double precision, a bound of the engine's. */
const DOCUMENTED_ISSUES = new Set(['overflow', 'limit_exceeded']);

export const count = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);

/** Method × mode × book shape: each must be answered in some drawn case. */
function shapeOf(r: CalculateRequest): string {
  const book = r.portfolio ? 'portfolio' : r.what_if ? 'positions+what_if' : 'positions';
  return `${r.method}/${r.portfolio_mode ?? 'buy_and_hold'}/${book}`;
}

/** Drawn from a seed: Monte Carlo, and filtered history's T > 1 bootstrap paths. */
function isSeeded(r: CalculateRequest): boolean {
  return r.method === 'monte_carlo_normal' || r.method === 'monte_carlo_student_t' || (r.method === 'historical_filtered' && r.time_horizon > 1);
}

/** Throws (with the request as JSON, which fast-check prints after shrinking) unless it holds. */
function check(ok: boolean, what: string, request: CalculateRequest, detail = ''): void {
  if (!ok) throw new Error(`${what}${detail ? `: ${detail}` : ''}\nrequest: ${JSON.stringify(request)}`);
}

/** A valid request's refusal names a documented reason: too little data, or only documented issue types. */
function documentedRefusal(o: Extract<Outcome, { ok: false }>): boolean {
  if (o.status !== 422) return false;
  if (o.code === 'INSUFFICIENT_DATA') return true;
  return o.code === 'VALIDATION_ERROR' && o.issues.length > 0 && o.issues.every((type) => DOCUMENTED_ISSUES.has(type));
}

/** The property over `builds` (the first the reference), and the tally of what it has seen. */
export function differentialProperty(builds: Build[]) {
  const [reference, ...others] = builds as [Build, ...Build[]];
  const tally = {
    cases: 0,
    answered: 0,
    relisted: 0,
    refused: new Map<string, number>(),
    methods: new Map<string, number>(),
    answeredShapes: new Map<string, number>(),
    sampling: new Map<string, number>(),
    weighted: 0,
  };

  async function property(request: CalculateRequest, listingSeed: number): Promise<void> {
    tally.cases++;
    count(tally.methods, request.method);
    const first: Outcome = await outcomeOf(request, reference.deps);
    const expected = comparable(first);
    for (const build of others) {
      const got = comparable(await outcomeOf(request, build.deps));
      check(got === expected, `${build.name} differs from ${reference.name}`, request, firstDifference(expected, got));
    }
    // The book listed otherwise: the same bytes on every build (api.md §13).
    const variant = relisted(request, listingSeed);
    const listed = listingFree(first);
    for (const build of builds) {
      const got = listingFree(await outcomeOf(variant, build.deps));
      check(
        got === listed,
        `${build.name}: the book listed otherwise gives other figures`,
        request,
        `${firstDifference(listed, got)}\nrelisted: ${JSON.stringify(variant)}`,
      );
    }
    tally.relisted++;
    if (!first.ok) {
      check(documentedRefusal(first), `refused without a documented reason: ${first.code} ${first.issues.join(',')}`, request, first.message);
      count(tally.refused, `${request.method}:${first.code}:${first.issues.join(',')}`);
      return;
    }
    tally.answered++;
    count(tally.answeredShapes, shapeOf(request));
    check(allFinite(first.body), 'a number in the response is not finite', request);
    const written = serializeCalculate(first.body);
    check(
      sameContent(written, first.body) && written.length === JSON.stringify(first.body).length,
      'the compiled serializer writes other content than JSON.stringify',
      request,
    );
    // Euler: the components of ES and of VaR add up to the totals, for books of any sign: within
    // 1e-9 relative; within the rounding of adding the components, n·ε of their gross each time they
    // are summed (a long/short book's components may be far larger than their net: ±1.2e15 adding
    // up to a VaR of 6.9e7); or, where the total is itself near zero (c near 0.5), within the
    // rounding of the P&L: a rebalanced P&L C·(gross − 1) carries about T·ε·C of it, gross being near 1.
    const meta = first.body.meta;
    const sampling = String(meta.estimation.sampling);
    tally.sampling.set(sampling, (tally.sampling.get(sampling) ?? 0) + 1);
    if (meta.variance_reduction === 'importance_sampling') tally.weighted++;
    for (const [key, total] of [
      ['component_es', meta.metrics.expected_shortfall],
      ['component_var', meta.metrics.value_at_risk],
    ] as const) {
      const parts = meta.contributions.map((c) => c[key]);
      const sum = parts.reduce((a, b) => a + b, 0);
      const gross = parts.reduce((a, b) => a + Math.abs(b), 0);
      const tolerance = 1e-9 * Math.abs(total) + 4 * parts.length * Number.EPSILON * gross + 1e-14 * request.time_horizon * meta.portfolio_value + 1e-300;
      check(Math.abs(sum - total) <= tolerance, `${key} does not add up`, request, `${sum} vs ${total}`);
    }
    // A mean lies between the values it averages: ES between VaR and the worst loss, an unweighted
    // mean P&L between the extremes (rounding must not carry them past).
    const m = meta.metrics;
    // Cornish–Fisher is a closed form over the sample's moments: its ES may lie beyond the worst
    // scenario, and is at least its VaR where the expansion is monotone over the tail.
    if (request.method === 'cornish_fisher' && meta.cornish_fisher?.valid) {
      const slack = 1e-12 * Math.abs(m.value_at_risk);
      check(m.value_at_risk <= m.expected_shortfall + slack, 'Cornish–Fisher ES below its VaR', request, JSON.stringify(m));
    }
    if (request.method !== 'parametric_normal' && request.method !== 'cornish_fisher') {
      check(m.value_at_risk <= m.expected_shortfall && m.expected_shortfall <= -m.worst_loss, 'ES outside [VaR, worst loss]', request, JSON.stringify(m));
      if (meta.variance_reduction !== 'importance_sampling') {
        check(m.worst_loss <= m.expected_pnl && m.expected_pnl <= m.best_gain, 'mean P&L outside the extremes', request, JSON.stringify(m));
      }
    }
    // Another seed must show other figures, unless no figure can move: every scenario with the same
    // P&L (a leveraged book ruined on every path) or P&L too small to square (a book of subnormal
    // exposures, 5e-324 being a valid market value: its P&L is 0 or 5e-324, its volatility 0).
    if (isSeeded(request) && m.volatility > 0 && m.worst_loss !== m.best_gain) {
      const seed = request.method_options!.seed!;
      const other = { ...request, method_options: { ...request.method_options, seed: seed === 2 ** 53 - 1 ? seed - 1 : seed + 1 } };
      const neighbour = await outcomeOf(other, reference.deps);
      // Other draws of a long leveraged path may leave double precision where these did not: refused
      // as an overflow, that seed still drew other scenarios.
      const overflowed = !neighbour.ok && neighbour.code === 'VALIDATION_ERROR' && neighbour.issues.every((type) => type === 'overflow');
      check(
        overflowed || (neighbour.ok && JSON.stringify(neighbour.body.meta.metrics) !== JSON.stringify(first.body.meta.metrics)),
        'the next seed drew the same scenarios',
        request,
        neighbour.ok ? '' : JSON.stringify(neighbour),
      );
    }
  }

  return { property, tally };
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}: …${a.slice(Math.max(0, i - 60), i + 60)}… vs …${b.slice(Math.max(0, i - 60), i + 60)}…`;
}
