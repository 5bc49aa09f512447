// Live risk (GET /api/v1/risk/live) against a full calculate of the same book, in one run on one
// service, timed two ways: in the server, from a tick received to its `risk` message handed to the
// socket and from a POST /calculate received to its answer written (the service's diagnostics
// channels), their ratio at p50 being issue 33's measure (target ≥ 10×); and at the client, from a
// tick sent to its `risk` message received and parsed, the same for calculate (the client shares
// this process, so its receipt and parse of each 47 KB message is on the same thread). Also the
// ticks per second one subscription absorbs under a burst (coalesced: inputs included per second of
// wall time). The last `risk` message must first equal, bit for bit, calculate of the book's
// exposures as market values.
import diagnostics_channel from 'node:diagnostics_channel';
import { HTTP_ANSWERED, LIVE_RISK_SENT, type HttpAnswered, type LiveRiskSent } from '../../src/http/diagnostics.js';
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
const spread = (xs: number[], extra: Record<string, number> = {}) => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), ...extra });

/** The server's own times, from its diagnostics channels: calculate answers, and risk messages by seq. */
function serverTimes() {
  const calculations: number[] = [];
  const risks = new Map<number, number>();
  const onAnswer = (m: unknown) => {
    const a = m as HttpAnswered;
    if (a.route === '/api/v1/risk/calculate' && a.status === 200) calculations.push(a.ms);
  };
  const onRisk = (m: unknown) => risks.set((m as LiveRiskSent).seq, (m as LiveRiskSent).ms);
  diagnostics_channel.subscribe(HTTP_ANSWERED, onAnswer);
  diagnostics_channel.subscribe(LIVE_RISK_SENT, onRisk);
  return {
    calculations,
    risks,
    close() {
      diagnostics_channel.unsubscribe(HTTP_ANSWERED, onAnswer);
      diagnostics_channel.unsubscribe(LIVE_RISK_SENT, onRisk);
    },
  };
}
const figures = (meta: LiveMessage) => bitJson(without(meta, 'calculation_id', 'timing_ms'));

/** The one server time a step published, else the bench is measuring something else: an error. */
function only(times: number[], what: string): number {
  if (times.length !== 1) throw new Error(`expected one server time for ${what}, got ${times.length}`);
  return times[0]!;
}

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
    const server = serverTimes();
    try {
      c.send({ type: 'subscribe', id: 'bench', request });
      await c.risk('bench');
      // Calculations and ticks alternate, so that both meet the same load.
      const full: number[] = [];
      const tick: number[] = [];
      const fullInServer: number[] = [];
      const tickInServer: number[] = [];
      const perCalc = Math.max(1, Math.round(o.ticks / o.calcs));
      let sent = 0;
      for (let r = 0; r < o.calcs; r++) {
        const started = performance.now();
        server.calculations.length = 0;
        const answer = await calculate(s.base, s.key, request);
        if (answer.status !== 200) throw new Error(answer.text);
        full.push(performance.now() - started);
        fullInServer.push(only(server.calculations, 'calculate'));
        for (let i = 0; i < perCalc; i++) {
          sent++;
          const tickStarted = performance.now();
          c.send({ type: 'prices', id: 'bench', prices: { [symbols[0]!]: 100 + sent / 100 } });
          await c.risk('bench', sent);
          tick.push(performance.now() - tickStarted);
          tickInServer.push(only(server.risks.has(sent) ? [server.risks.get(sent)!] : [], `risk seq ${sent}`));
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
        // Issue 33's measure: in the server, a tick received to its risk message sent.
        in_server: {
          calculate_ms: spread(fullInServer, { runs: fullInServer.length }),
          tick_to_risk_ms: spread(tickInServer, { ticks: tickInServer.length }),
          p50_speedup: quantile(fullInServer, 0.5) / quantile(tickInServer, 0.5),
        },
        // At the client, in this process: a tick sent to its risk message received and parsed.
        at_client: {
          calculate_ms: spread(full, { runs: full.length }),
          tick_to_risk_ms: spread(tick, { ticks: tick.length }),
          p50_speedup: quantile(full, 0.5) / quantile(tick, 0.5),
        },
        burst: { ticks: burst, risk_messages: messages, seconds: burstSeconds, ticks_per_s: burst / burstSeconds },
      };
    } finally {
      server.close();
      c.close();
    }
  } finally {
    await s.stop();
  }
}
