import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../paths.js';

/** Real daily prices of five US stocks with FRED's USDEUR, USDGBP and USDJPY (examples/fx-desk.md). */
const FX_DESK = path.join(ROOT, 'examples/fx-desk.csv');

const money = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 0 }).padStart(12);

interface FxMeta {
  metrics: { value_at_risk: number; expected_shortfall: number };
  fx: {
    var_without_fx: number;
    es_without_fx: number;
    fx_effect_var: number;
    fx_effect_es: number;
    fx_effect_var_standard_error: number;
    fx_effect_es_standard_error: number;
    pairs: { pair: string; via: string | null; last_rate: number }[];
  };
  currency_breakdown: { currency: string; gross: number; net: number; component_es: number }[];
}

/**
 * A EUR-reporting desk holding the US stocks plus yen and sterling cash: its VaR and ES in euros,
 * the FX effect (the same scenarios with every FX return at 0) and its ES by currency.
 */
export async function multiCurrencyDesk(base: string, key: string): Promise<void> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(await readFile(FX_DESK))]), 'fx-desk.csv');
  form.set('base_currency', 'USD');
  const res = await fetch(`${base}/datasets/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
  const up = (await res.json()) as { dataset_id: string };
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(up)}`);
  const body = {
    dataset_id: up.dataset_id,
    method: 'monte_carlo_normal',
    method_options: { seed: 2024 },
    currency: 'EUR',
    positions: [
      { symbol: 'AAPL', quantity: 3000 },
      { symbol: 'MSFT', quantity: 2500 },
      { symbol: 'JPM', quantity: -1500 },
      { symbol: 'KO', quantity: 4000 },
      { cash: 'JPY', amount: 60_000_000 },
      { cash: 'GBP', amount: 250_000 },
    ],
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 200_000,
  };
  const calc = await fetch(`${base}/calculate`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const { meta } = (await calc.json()) as { meta: FxMeta };
  if (!calc.ok) throw new Error(`${calc.status}: ${JSON.stringify(meta)}`);
  const f = meta.fx;
  const pairs = f.pairs.map((p) => `${p.pair} ${p.last_rate.toPrecision(5)}${p.via ? ` via ${p.via}` : ''}`).join(', ');
  console.log(`\nEUR desk (fx-desk.csv): AAPL 3000, MSFT 2500, JPM -1500, KO 4000 sh, ¥60,000,000 and £250,000 cash; ${pairs}`);
  console.log(`monte_carlo_normal 99% 10d in EUR: VaR ${money(meta.metrics.value_at_risk).trim()}, ES ${money(meta.metrics.expected_shortfall).trim()}`);
  console.log(
    `FX effect (same scenarios, FX returns at 0): VaR ${(f.fx_effect_var >= 0 ? '+' : '−') + money(Math.abs(f.fx_effect_var)).trim()} ± ${f.fx_effect_var_standard_error.toFixed(0)}, ` +
      `ES ${(f.fx_effect_es >= 0 ? '+' : '−') + money(Math.abs(f.fx_effect_es)).trim()} ± ${f.fx_effect_es_standard_error.toFixed(0)} (without FX: VaR ${money(f.var_without_fx).trim()}, ES ${money(f.es_without_fx).trim()})`,
  );
  console.log('currency          gross          net   component ES');
  for (const row of meta.currency_breakdown) console.log(`${row.currency.padEnd(8)} ${money(row.gross)} ${money(row.net)} ${money(row.component_es)}`);
}
