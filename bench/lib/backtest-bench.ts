// The issue-13 backtest through the real service: 250 forecast days of a 10-symbol long/short book,
// each a Monte Carlo forecast of 10,000 simulations estimated on the 500 returns before it. Reported
// as the share of the compute deadline it leaves (CALC_TIMEOUT_MS / backtest time), a ratio.
import { readFileSync } from 'node:fs';
import { generateWide461 } from '../../test/helpers/generate-prices.js';
import { startBenchService } from './service-bench.js';
import { median } from './stats.js';

/** The service's default compute deadline (src/config.ts). */
export const DEADLINE_MS = 30_000;

export interface BacktestFigures {
  days: number;
  symbols: number;
  simulations: number;
  /** Medians over the repeats: wall time seen by the client, and the server's own. */
  wall_ms: number;
  server_ms: number;
  deadline_over_backtest: number;
  exceptions: number;
}

export async function benchBacktest(repeats: number, workers = 2): Promise<BacktestFigures> {
  const svc = await startBenchService({ WORKERS: String(workers), RATE_LIMIT_BACKTEST_PER_MIN: '1000000', RATE_LIMIT_UPLOAD_PER_MIN: '1000' });
  try {
    const file = generateWide461();
    const dataset = await svc.upload(file);
    const symbols = readFileSync(file, 'utf8').slice(0, 4000).split('\n')[0]!.split(',').slice(1, 11);
    const body = {
      dataset_id: dataset,
      method: 'monte_carlo_normal',
      method_options: { seed: 11 },
      currency: 'USD',
      positions: symbols.map((symbol, i) => ({ symbol, market_value: (i % 3 === 2 ? -1 : 1) * 100_000 * (1 + i) })),
      confidence_level: 0.99,
      time_horizon: 1,
      simulations: 10_000,
      backtest: { window: 250, estimation_window: 500 },
    };
    const walls: number[] = [];
    const servers: number[] = [];
    let meta: { backtest: { observations: number; exceptions: number }; timing_ms: { total: number } } | undefined;
    for (let r = 0; r < repeats; r++) {
      const started = performance.now();
      const res = await fetch(`${svc.base}/api/v1/risk/backtest`, {
        method: 'POST',
        headers: { 'X-API-Key': svc.keys[0]!, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { meta: NonNullable<typeof meta> };
      if (res.status !== 200) throw new Error(`backtest ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
      walls.push(performance.now() - started);
      servers.push(json.meta.timing_ms.total);
      meta = json.meta;
    }
    if (meta!.backtest.observations !== 250) throw new Error(`backtest bench: ${meta!.backtest.observations} days, not 250`);
    const wall = median(walls);
    return {
      days: 250,
      symbols: symbols.length,
      simulations: 10_000,
      wall_ms: wall,
      server_ms: median(servers),
      deadline_over_backtest: DEADLINE_MS / wall,
      exceptions: meta!.backtest.exceptions,
    };
  } finally {
    await svc.stop();
  }
}
