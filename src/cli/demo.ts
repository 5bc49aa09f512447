import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileKeyStore } from '../auth/key-store.js';
import { loadKeySecret } from '../auth/secret.js';
import { loadConfig } from '../config.js';
import { ROOT } from '../paths.js';
import { startService } from '../service.js';
import { multiCurrencyDesk } from './demo-fx.js';
import { optionBooks } from './demo-options.js';

const SAMPLE = path.join(ROOT, 'examples/prices_wide_sample.csv');
const PORTFOLIO = [
  { symbol: 'AAPL', weight: 0.25 },
  { symbol: 'MSFT', weight: 0.25 },
  { symbol: 'JPM', weight: 0.2 },
  { symbol: 'XOM', weight: 0.15 },
  { symbol: 'KO', weight: 0.15 },
];

const money = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 }).padStart(12);

async function post(url: string, key: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(json)}`);
  return json;
}

interface BookMeta {
  metrics: Record<string, number>;
  exposures: { gross: number; net: number };
  what_if: Record<string, number>;
}

/** A long/short book by quantities and market values, and what selling 2,000 AAPL does to it. */
async function longShort(base: string, key: string, datasetId: string): Promise<void> {
  const positions = [
    { symbol: 'AAPL', quantity: 8000 },
    { symbol: 'MSFT', quantity: -3100 },
    { symbol: 'JPM', market_value: 500_000 },
    { symbol: 'XOM', market_value: -300_000 },
  ];
  const trades = [{ symbol: 'AAPL', quantity: -2000 }];
  const body = {
    dataset_id: datasetId,
    method: 'monte_carlo_normal',
    method_options: { seed: 2024 },
    currency: 'USD',
    positions,
    what_if: { trades },
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 200_000,
  };
  const { meta } = (await post(`${base}/calculate`, key, body)) as { meta: BookMeta };
  const w = meta.what_if;
  const describe = (items: { symbol: string; quantity?: number; market_value?: number }[]) =>
    items.map((p) => (p.quantity !== undefined ? `${p.symbol} ${p.quantity} sh` : `${p.symbol} $${p.market_value!.toLocaleString('en-US')}`)).join(', ');
  console.log(`\nLong/short book: ${describe(positions)} (gross ${money(meta.exposures.gross).trim()}, net ${money(meta.exposures.net).trim()})`);
  console.log(`monte_carlo_normal       buy_and_hold ${money(meta.metrics.value_at_risk!)}  ${money(meta.metrics.expected_shortfall!)}`);
  console.log(
    `what-if ${describe(trades)}: VaR ${money(w.value_at_risk!).trim()} (${signed(w.incremental_var!)} ± ${w.incremental_var_standard_error!.toFixed(0)}), ` +
      `ES ${money(w.expected_shortfall!).trim()} (${signed(w.incremental_es!)} ± ${w.incremental_es_standard_error!.toFixed(0)})`,
  );
}

/** The sample book's 1-day 99 % VaR backtest over the last 250 days, and its stress table. */
async function validation(base: string, key: string, datasetId: string): Promise<void> {
  const book = { dataset_id: datasetId, currency: 'USD', portfolio_value: 1_000_000, portfolio: PORTFOLIO };
  const bt = (await post(`${base}/backtest`, key, {
    ...book,
    method: 'historical',
    confidence_level: 0.99,
    time_horizon: 1,
    backtest: { window: 250, estimation_window: 500 },
  })) as { meta: { backtest: Record<string, number> & { traffic_light: { zone: string; basel_multiplier: number }; kupiec: { p_value: number } } } };
  const b = bt.meta.backtest;
  console.log(
    `\nBacktest, historical 1-day VaR 99 % over ${b.observations} days: ${b.exceptions} exceptions (${b.expected_exceptions!.toFixed(1)} expected), ` +
      `Kupiec p ${b.kupiec.p_value.toFixed(3)}, traffic light ${b.traffic_light.zone} (Basel multiplier ${b.traffic_light.basel_multiplier})`,
  );
  const scenarios = [
    { type: 'historical_worst', horizon: 10 },
    { type: 'named', name: 'q4_2018' },
    { type: 'named', name: 'china_2015' },
    { type: 'named', name: 'covid_2020' },
    { type: 'shock', shocks: { AAPL: -0.2, MSFT: -0.2 } },
    { type: 'conditional', shocks: { JPM: -0.15 }, horizon: 10 },
  ];
  const st = (await post(`${base}/stress`, key, { ...book, scenarios })) as {
    meta: { results: { scenario: { type: string; name?: string }; covered: boolean; start?: string; end?: string; pnl: number; pnl_pct: number }[] };
  };
  console.log('stress scenario                    window                        P&L       %');
  for (const r of st.meta.results) {
    const label = (r.scenario.name ?? r.scenario.type).padEnd(30);
    const window = r.start ? `${r.start} → ${r.end}` : r.covered ? '' : 'not in the data';
    console.log(`${label} ${window.padEnd(24)} ${r.covered ? money(r.pnl) : ''.padStart(12)} ${r.covered ? (100 * r.pnl_pct).toFixed(1).padStart(6) : ''}`);
  }
}

/** The portfolio's 99 % 10-day ES to within 0.5 %, plain and with importance sampling: the simulations each took, and the time. */
async function precise(base: string, key: string, datasetId: string, variance_reduction: 'none' | 'importance_sampling'): Promise<void> {
  const body = {
    dataset_id: datasetId,
    method: 'monte_carlo_normal',
    method_options: { seed: 2024, target_relative_error: 0.005, variance_reduction },
    portfolio_value: 1_000_000,
    currency: 'USD',
    portfolio: PORTFOLIO,
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 10_000_000,
  };
  const { meta } = (await post(`${base}/calculate`, key, body)) as {
    meta: { metrics: Record<string, number>; precision: { simulations_used: number; rounds: number; achieved_es: number }; timing_ms: { total: number } };
  };
  const p = meta.precision;
  const label = variance_reduction === 'none' ? '\nTarget 0.5 %:' : 'Target 0.5 %, importance sampling:';
  console.log(
    `${label} ES ${money(meta.metrics.expected_shortfall!).trim()} ± ${(100 * p.achieved_es).toFixed(2)} % after ${p.simulations_used.toLocaleString('en-US')} simulations (${p.rounds} round${p.rounds === 1 ? '' : 's'}), ${meta.timing_ms.total.toFixed(0)} ms`,
  );
}

const signed = (x: number) => (x >= 0 ? '+' : '−') + Math.abs(x).toLocaleString('en-US', { maximumFractionDigits: 0 });

/**
 * `npm run demo`: start the service, upload the sample with a fresh key, print a risk table. It
 * runs on a throwaway store (its own key, secret and datasets in a temporary directory, removed
 * afterwards), so it leaves nothing in DATA_DIR or a shared database.
 */
async function demo(): Promise<void> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'risk-demo-'));
  const config = {
    ...loadConfig(),
    port: 0,
    host: '127.0.0.1',
    logLevel: 'warn',
    dataDir: path.join(scratch, 'data'),
    secretFile: path.join(scratch, 'secret'),
    databaseUrl: undefined,
    redisUrl: undefined,
  };
  // The key exists before the service starts, so it starts with one (and says nothing about keys).
  const { key } = await new FileKeyStore(config.dataDir, loadKeySecret(config.secretFile)).create({ name: 'demo', calculateLimit: 100 });
  const service = await startService(config);
  const base = `http://127.0.0.1:${service.port}/api/v1/risk`;
  try {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(await readFile(SAMPLE))]), 'prices_wide_sample.csv');
    const up = (await (await fetch(`${base}/datasets/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: form })).json()) as {
      dataset_id: string;
    };
    console.log(
      `Uploaded ${path.basename(SAMPLE)} as ${up.dataset_id}. Portfolio $1,000,000: ${PORTFOLIO.map((p) => `${p.symbol} ${p.weight * 100}%`).join(', ')}\n`,
    );
    console.log('method                   mode          VaR 99% 10d     ES 99% 10d   exp. P&L   ms');
    for (const method of ['parametric_normal', 'historical', 'monte_carlo_normal', 'monte_carlo_student_t']) {
      for (const mode of ['buy_and_hold', 'rebalanced']) {
        if (method === 'parametric_normal' && mode === 'rebalanced') continue;
        const body = {
          dataset_id: up.dataset_id,
          method,
          method_options: { seed: 2024 },
          portfolio_value: 1_000_000,
          currency: 'USD',
          portfolio: PORTFOLIO,
          portfolio_mode: mode,
          confidence_level: 0.99,
          time_horizon: 10,
          simulations: 200_000,
        };
        const json = (await post(`${base}/calculate`, key, body)) as { meta: { metrics: Record<string, number>; timing_ms: { total: number } } };
        const m = json.meta.metrics;
        console.log(
          `${method.padEnd(24)} ${mode.padEnd(12)} ${money(m.value_at_risk!)}  ${money(m.expected_shortfall!)} ${money(m.expected_pnl!)} ${json.meta.timing_ms.total.toFixed(0).padStart(4)}`,
        );
      }
    }
    await precise(base, key, up.dataset_id, 'none');
    await precise(base, key, up.dataset_id, 'importance_sampling');
    await longShort(base, key, up.dataset_id);
    await optionBooks(base, key, up.dataset_id, post);
    await validation(base, key, up.dataset_id);
    await multiCurrencyDesk(base, key);
  } finally {
    await service.shutdown();
    await rm(scratch, { recursive: true, force: true });
  }
}

demo().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
