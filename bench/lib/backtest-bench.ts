// The issue-13 backtest through the real service: 250 forecast days of a 10-symbol long/short book,
// each a Monte Carlo forecast of 10,000 simulations estimated on the 500 returns before it, against
// its days asked one at a time: single calculate calls of the same book and model on the last 500
// returns, in the same interleaved rounds. Both arms run on the same machine in the same minute, so
// the ratio says what the backtest path makes of its days, not how fast the machine is.
import { readFileSync } from 'node:fs';
import { generateWide461 } from '../../test/helpers/generate-prices.js';
import { postCalculate, startBenchService } from './service-bench.js';
import { interleaved, pairedRatio } from './stats.js';

/** The service's default compute deadline (src/config.ts): the backtest is reported against it. */
export const DEADLINE_MS = 30_000;
const DAYS = 250;
/** Single calls timed per round: each round's per-call time stands for the backtest's every day. */
const SINGLE_CALLS = 25;

export interface BacktestFigures {
  days: number;
  symbols: number;
  simulations: number;
  /** Medians over the rounds, wall time seen by the client: the backtest, and one single call. */
  wall_ms: number;
  single_ms: number;
  /** Per round, (days × one single call) / the backtest, the median: ≥ 1 when the backtest gains from asking its days at once. */
  single_days_over_backtest: number;
  /** CALC_TIMEOUT_MS / the backtest's median: reported, not guarded (it is the machine's speed). */
  deadline_over_backtest: number;
  exceptions: number;
}

export async function benchBacktest(repeats: number, workers = 2): Promise<BacktestFigures> {
  const svc = await startBenchService({
    WORKERS: String(workers),
    RATE_LIMIT_BACKTEST_PER_MIN: '1000000',
    RATE_LIMIT_CALCULATE_PER_MIN: '1000000',
    RATE_LIMIT_UPLOAD_PER_MIN: '1000',
  });
  try {
    const file = generateWide461();
    const dataset = await svc.upload(file);
    const symbols = readFileSync(file, 'utf8').slice(0, 4000).split('\n')[0]!.split(',').slice(1, 11);
    const day = {
      dataset_id: dataset,
      method: 'monte_carlo_normal',
      method_options: { seed: 11 },
      currency: 'USD',
      positions: symbols.map((symbol, i) => ({ symbol, market_value: (i % 3 === 2 ? -1 : 1) * 100_000 * (1 + i) })),
      confidence_level: 0.99,
      time_horizon: 1,
      simulations: 10_000,
    };
    const backtestBody = JSON.stringify({ ...day, backtest: { window: DAYS, estimation_window: 500 } });
    const singleBody = JSON.stringify({ ...day, method_options: { ...day.method_options, lookback: 500 } });
    let meta: { backtest: { observations: number; exceptions: number } } | undefined;
    const backtest = async () => {
      const res = await fetch(`${svc.base}/api/v1/risk/backtest`, {
        method: 'POST',
        headers: { 'X-API-Key': svc.keys[0]!, 'Content-Type': 'application/json' },
        body: backtestBody,
      });
      const json = (await res.json()) as { meta: NonNullable<typeof meta> };
      if (res.status !== 200) throw new Error(`backtest ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
      meta = json.meta;
    };
    // Sent one after the other, as a desk script would ask for each day.
    const singles = async () => {
      for (let i = 0; i < SINGLE_CALLS; i++) await postCalculate(svc, '', singleBody, 'a backtest day as a single call');
    };
    await singles();
    const { ms, samples } = await interleaved({ backtest, singles }, repeats);
    if (meta!.backtest.observations !== DAYS) throw new Error(`backtest bench: ${meta!.backtest.observations} days, not ${DAYS}`);
    return {
      days: DAYS,
      symbols: symbols.length,
      simulations: day.simulations,
      wall_ms: ms.backtest!,
      single_ms: ms.singles! / SINGLE_CALLS,
      // A constant factor: the median of the scaled ratios is the scaled median.
      single_days_over_backtest: (DAYS / SINGLE_CALLS) * pairedRatio(samples, 'singles', 'backtest'),
      deadline_over_backtest: DEADLINE_MS / ms.backtest!,
      exceptions: meta!.backtest.exceptions,
    };
  } finally {
    await svc.stop();
  }
}
