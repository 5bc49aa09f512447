import { validationError } from '../../contract/errors.js';
import { type StressScenarioInput } from '../../contract/stress-schemas.js';
import { type StressOutcome } from './scenarios.js';

/**
 * Refuses, at its scenario, an outcome holding a number that is not a finite double: an answer
 * never carries one. A move is infinite where a −100 % shock hits a rate an instrument is
 * converted through inversely (its value in the reporting currency divides by 0), or where a
 * conditional move's log return is beyond e^709; a P&L overflows where prices near the largest
 * double meet a large shock or quantity. Checked before options are repriced on the moves, and
 * again after.
 */
export function checkFinite(scenarios: StressScenarioInput[], outcomes: Pick<StressOutcome, 'pnl' | 'pnl_pct' | 'items'>[]): void {
  outcomes.forEach((o, i) => {
    const scenario = scenarios[i]!;
    const at = scenario.type === 'shock' || scenario.type === 'conditional' ? ['body', 'scenarios', i, 'shocks'] : ['body', 'scenarios', i];
    const moved = o.items.find((item) => !Number.isFinite(item.return));
    if (moved) {
      const msg = `the scenario moves ${moved.symbol} by a return that is not finite (a −100 % shock on a rate it is converted through inversely, or a conditional move beyond double precision)`;
      throw validationError([{ loc: at, msg, type: 'overflow' }]);
    }
    const figures = [o.pnl, o.pnl_pct, ...o.items.flatMap((item) => [item.pnl, item.value ?? 0, item.conditional_sd ?? 0])];
    if (!figures.every(Number.isFinite)) {
      throw validationError([{ loc: at, msg: 'the scenario’s P&L on this book overflows double precision', type: 'overflow' }]);
    }
  });
}
