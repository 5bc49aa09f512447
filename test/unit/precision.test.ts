// The round schedule of a precision-targeted calculation over the whole range of `simulations`, and
// the stopping rule against scripted results.
import t from 'tap';
import fc from 'fast-check';
import { type EngineResults } from '../../src/engine/results-codec.js';
import { FIRST_ROUND, roundSchedule, runToPrecision } from '../../src/risk/precision.js';

const BLOCK = 256;

t.test('the schedule: FIRST_ROUND doubling up to the cap, whole blocks but the last', async (t) => {
  t.same(roundSchedule(100), [100], 'below the first round: one round, the cap');
  t.same(roundSchedule(FIRST_ROUND), [FIRST_ROUND]);
  t.same(roundSchedule(FIRST_ROUND + 1), [FIRST_ROUND, FIRST_ROUND + 1]);
  t.same(roundSchedule(4 * FIRST_ROUND), [FIRST_ROUND, 2 * FIRST_ROUND, 4 * FIRST_ROUND]);
  const caps = fc.oneof(
    fc.constantFrom(100, 101, 255, 256, 16_383, 16_384, 16_385, 2 ** 20, 10_000_000, 100_000_000),
    fc.integer({ min: 100, max: 100_000_000 }),
  );
  fc.assert(
    fc.property(caps, (cap) => {
      const s = roundSchedule(cap);
      const increasing = s.every((n, i) => i === 0 || n > s[i - 1]!);
      const blocks = s.slice(0, -1).every((n) => n % BLOCK === 0);
      const doubling = s.slice(1, -1).every((n, i) => n === 2 * s[i]!);
      return s[0] === Math.min(cap, FIRST_ROUND) && s.at(-1) === cap && increasing && blocks && doubling && s.length <= 14;
    }),
  );
});

/** Results whose one book has the given relative standard errors. */
const results = (relVar: number, relEs: number, estimate = 100): EngineResults =>
  ({
    books: [
      {
        valueAtRisk: estimate,
        expectedShortfall: estimate,
        valueAtRiskStandardError: relVar * Math.abs(estimate),
        expectedShortfallStandardError: relEs * Math.abs(estimate),
      },
    ],
    whatIf: null,
  }) as unknown as EngineResults;

t.test('stops at the first round where both errors are within the target', async (t) => {
  const seen: number[] = [];
  const errors = [0.05, 0.02, 0.009, 0.001];
  const { precision } = await runToPrecision(0.01, 1_000_000, async (n) => {
    seen.push(n);
    const e = errors[seen.length - 1]!;
    return results(e, seen.length === 3 ? 0.011 : e); // round 3: VaR within, ES not yet
  });
  t.same(seen, [16_384, 32_768, 65_536, 131_072]);
  t.same(precision, { target: 0.01, achieved_var: 0.001, achieved_es: 0.001, simulations_used: 131_072, rounds: 4, reached: true });
});

t.test('an estimate of zero never reaches a relative target; the cap ends the rounds', async (t) => {
  const { precision } = await runToPrecision(0.01, 40_000, async () => results(0, 0, 0));
  t.same(precision, { target: 0.01, achieved_var: null, achieved_es: null, simulations_used: 40_000, rounds: 3, reached: false });
  const negative = await runToPrecision(0.01, 40_000, async () => results(0.001, 0.001, -5));
  t.equal(negative.precision.reached, true, 'a gain (negative VaR) is measured against its magnitude');
});
