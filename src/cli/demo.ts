import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { ROOT } from '../paths.js';
import { startService } from '../service.js';

const SAMPLE = path.join(ROOT, 'examples/prices_wide_sample.csv');
const PORTFOLIO = [
  { symbol: 'AAPL', weight: 0.25 },
  { symbol: 'MSFT', weight: 0.25 },
  { symbol: 'JPM', weight: 0.2 },
  { symbol: 'XOM', weight: 0.15 },
  { symbol: 'KO', weight: 0.15 },
];

const money = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 }).padStart(12);

/** `npm run demo`: start the service, upload the sample with a fresh key, print a risk table. */
async function demo(): Promise<void> {
  const config = { ...loadConfig(), port: 0, host: '127.0.0.1', logLevel: 'warn' };
  const service = await startService(config);
  // The running service's own key store: the key file, or PostgreSQL with DATABASE_URL.
  const { record, key } = await service.keys.create({ name: 'demo', calculateLimit: 100 });
  await new Promise((r) => setTimeout(r, config.keyReloadMs + 100)); // the running service picks it up
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
        const res = await fetch(`${base}/calculate`, {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        const json = (await res.json()) as { meta: { metrics: Record<string, number>; timing_ms: { total: number } } };
        const m = json.meta.metrics;
        console.log(
          `${method.padEnd(24)} ${mode.padEnd(12)} ${money(m.value_at_risk!)}  ${money(m.expected_shortfall!)} ${money(m.expected_pnl!)} ${json.meta.timing_ms.total.toFixed(0).padStart(4)}`,
        );
      }
    }
  } finally {
    await service.keys.revoke(record.id);
    await service.shutdown();
  }
}

demo().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
