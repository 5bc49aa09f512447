// Live risk (GET /api/v1/risk/live) against a full calculate of the same book, in one run on one
// service: the time from a tick sent to its `risk` message received (p50, p99), the same for POST
// /calculate of the book, their ratio at p50 (issue 33 targets ≥ 10×), and the ticks per second one
// subscription absorbs under a burst (coalesced: inputs included per second of wall time). The last
// `risk` message must first equal, bit for bit, calculate of the book's exposures as market values.
import { calculate, uploadFile } from '../../test/helpers/http.js';
import { bitJson } from '../../test/helpers/bit-json.js';
import { generateWide461 } from '../../test/helpers/generate-prices.js';
import { LiveClient, type LiveMessage } from '../../test/helpers/live-client.js';
import { startTestService } from '../../test/helpers/service.js';
import { without } from '../../test/helpers/without.js';

export interface LiveBenchOptions {
  positions: number;
  scenarios: number;
  ticks: number;
  calcs: number;
  workers?: string;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;
const figures = (meta: LiveMessage) => bitJson(without(meta, 'calculation_id', 'timing_ms'));

export async function benchLive(o: LiveBenchOptions) {
  const s = await startTestService({ LIVE_MESSAGES_PER_SEC: '1000000', RATE_LIMIT_CALCULATE_PER_MIN: '100000', WORKERS: o.workers ?? '2' });
  try {
    const upload = await uploadFile(s.base, s.key, generateWide461());
    const symbols = (upload.body.dataset.symbols as string[]).slice(0, o.positions);
    const request = {
      dataset_id: upload.body.dataset_id as string,
      method: 'monte_carlo_normal',
      method_options: { seed: 33 },
      currency: 'USD',
      positions: symbols.map((symbol, i) => ({ symbol, quantity: (i % 3 === 2 ? -1 : 1) * (100 + i) })),
      confidence_level: 0.99,
      time_horizon: 10,
      simulations: o.scenarios,
    };

    // One calculation first: the dataset's load and the estimation (cached after) are no tick's cost.
    await calculate(s.base, s.key, request);
    const c = await LiveClient.open(s.base, s.key);
    try {
      c.send({ type: 'subscribe', id: 'bench', request });
      await c.risk('bench');
      // Calculations and ticks alternate, so that both meet the same load.
      const full: number[] = [];
      const tick: number[] = [];
      const perCalc = Math.max(1, Math.round(o.ticks / o.calcs));
      let sent = 0;
      for (let r = 0; r < o.calcs; r++) {
        const started = performance.now();
        const answer = await calculate(s.base, s.key, request);
        if (answer.status !== 200) throw new Error(answer.text);
        full.push(performance.now() - started);
        for (let i = 0; i < perCalc; i++) {
          sent++;
          const tickStarted = performance.now();
          c.send({ type: 'prices', id: 'bench', prices: { [symbols[0]!]: 100 + sent / 100 } });
          await c.risk('bench', sent);
          tick.push(performance.now() - tickStarted);
        }
      }
      const last = c.received.filter((m) => m.type === 'risk').at(-1)!;
      const items = last.meta.exposures.items as { symbol: string; exposure: number }[];
      const same = await calculate(s.base, s.key, {
        ...request,
        positions: items.map((item) => ({ symbol: item.symbol, market_value: item.exposure })),
      });
      if (figures(same.body.meta) !== figures(last.meta)) throw new Error('the last risk message differs from calculate of its exposures');

      // A burst: every tick sent at once; the subscription includes them as fast as it computes.
      const burst = o.ticks * 20;
      const burstStarted = performance.now();
      for (let i = 1; i <= burst; i++) c.send({ type: 'prices', id: 'bench', prices: { [symbols[1]!]: 50 + i / 100 } });
      await c.risk('bench', sent + burst);
      const burstSeconds = (performance.now() - burstStarted) / 1000;
      const messages = c.received.filter((m) => m.type === 'risk').length - 1 - sent;
      return {
        book: `${o.positions} positions × ${o.scenarios.toLocaleString('en-US')} scenarios, monte_carlo_normal, WORKERS=${s.config.workers}`,
        calculate_ms: { p50: quantile(full, 0.5), p99: quantile(full, 0.99), runs: full.length },
        tick_to_risk_ms: { p50: quantile(tick, 0.5), p99: quantile(tick, 0.99), ticks: tick.length },
        p50_speedup: quantile(full, 0.5) / quantile(tick, 0.5),
        burst: { ticks: burst, risk_messages: messages, seconds: burstSeconds, ticks_per_s: burst / burstSeconds },
      };
    } finally {
      c.close();
    }
  } finally {
    await s.stop();
  }
}
