// Books of long and short positions (calculate with `positions`, `what_if`) against independent NumPy figures:
// test/engine/oracles/long_short.py (committed beside its output, long-short.json) computes, from
// the wide sample CSV, parametric and exact historical VaR/ES, Monte Carlo estimates with their own
// batch standard errors, the exposures, and a what-if. Each figure carries the request (without
// dataset_id) that should reproduce it; this test posts it to the real service and compares.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';
import { calculate, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { allowedMisses } from '../helpers/allowed-misses.js';

interface Window {
  index: number;
  start: string;
  end: string;
  pnl: number;
  returns: Record<string, number>;
}

interface Figure {
  request: { method: string; portfolio_mode: string; confidence_level: number; time_horizon: number } & Record<string, unknown>;
  value_at_risk: number;
  expected_shortfall: number;
  // Monte Carlo: the NumPy estimate's own standard errors (20 batches).
  value_at_risk_standard_error?: number;
  expected_shortfall_standard_error?: number;
  numpy_draws?: number;
  // Historical: the number of windows, the tail count, and the worst and k-th worst windows.
  scenarios?: number;
  k?: number;
  worst_loss?: number;
  worst_window?: Window;
  kth_worst_window?: Window;
}

interface Item {
  symbol: string;
  quantity: number | null;
  price: number;
  exposure: number;
}

interface Book {
  id: string;
  description: string;
  positions: ({ symbol: string; quantity: number } | { symbol: string; market_value: number })[];
  portfolio_value: number | null;
  capital: number;
  estimation: { observations: number; first_date: string; last_date: string };
  exposures: { gross: number; net: number; long: number; short: number; items: Item[] };
  figures: Figure[];
}

interface WhatIf {
  book: string;
  description: string;
  request: { time_horizon: number; confidence_level: number } & Record<string, unknown>;
  union_symbols: string[];
  after: { value_at_risk: number; expected_shortfall: number };
  before: { value_at_risk: number; expected_shortfall: number };
  incremental_var: number;
  incremental_es: number;
}

const table = JSON.parse(readFileSync(path.join(ROOT, 'test/engine/oracles/long-short.json'), 'utf8')) as { books: Book[]; what_if: WhatIf[] };

/** |got − want| ≤ tol·|want|: relative, and exact where the expected value is 0. */
const close = (got: unknown, want: number, tol: number) => typeof got === 'number' && Math.abs(got - want) <= tol * Math.abs(want);
const label = (f: Figure) => `${f.request.method} ${f.request.portfolio_mode}, c ${f.request.confidence_level}, T ${f.request.time_horizon}`;

/**
 * A Monte Carlo figure misses the NumPy figure by more than 3 combined standard errors now and then
 * by chance (each error is estimated from 20 batches, P(|z| > 3) ≈ 0.7 %); over 36 figures at least
 * one miss comes about one run in five. So the misses are counted and may not exceed what a
 * correct engine reaches with probability ≥ 0.001 (binomial tail at 1 %), and no figure may miss by
 * more than 5 combined standard errors.
 */
const MISS_RATE = 0.01;
const HARD_LIMIT = 5;

t.test('long/short books: the service against independent NumPy figures', async (t) => {
  const s = await startTestService({ WORKERS: '2' });
  t.teardown(() => s.stop());
  const upload = await uploadFile(s.base, s.key, WIDE_SAMPLE);
  t.equal(upload.status, 200, upload.text);
  const ds = upload.body.dataset_id as string;
  const monteCarlo: { label: string; z: number }[] = [];

  for (const book of table.books) {
    await t.test(`${book.id}: ${book.description}`, async (t) => {
      let exposuresChecked = false;
      for (const f of book.figures) {
        const r = await calculate(s.base, s.key, { dataset_id: ds, ...f.request });
        t.equal(r.status, 200, `${label(f)}: ${r.status === 200 ? 'ok' : r.text}`);
        if (r.status !== 200) continue;
        const meta = r.body.meta;
        const m = meta.metrics;

        if (!exposuresChecked) {
          exposuresChecked = true;
          const want = book.exposures;
          const got = meta.exposures ?? {};
          for (const key of ['gross', 'net', 'long', 'short'] as const) {
            t.ok(close(got[key], want[key], 1e-12), `exposures.${key}: ${got[key]} vs ${want[key]}`);
          }
          t.equal(got.items?.length, want.items.length, 'one exposure item per position');
          want.items.forEach((w, i) => {
            const g = got.items?.[i] ?? {};
            t.equal(g.symbol, w.symbol, `item ${i}: symbol`);
            t.equal(g.quantity, w.quantity, `${w.symbol}: quantity ${w.quantity === null ? 'null (market value given)' : w.quantity}`);
            t.ok(close(g.price, w.price, 1e-12), `${w.symbol}: price ${g.price} vs ${w.price} (last price of the estimation)`);
            t.ok(close(g.exposure, w.exposure, 1e-12), `${w.symbol}: exposure ${g.exposure} vs ${w.exposure}`);
          });
          if (want.net === 0) t.ok(got.net === 0, `dollar-neutral: net exposure is 0 (${got.net})`);
          t.match(
            meta.estimation,
            { observations: book.estimation.observations, first_date: book.estimation.first_date, last_date: book.estimation.last_date },
            'estimation on the dates where every book symbol has a price',
          );
        }
        // _pct figures divide by the capital: portfolio_value if given, else the gross exposure.
        t.ok(close(m.value_at_risk_pct * book.capital, m.value_at_risk, 1e-12), `${label(f)}: value_at_risk_pct = VaR / ${book.capital}`);

        if (f.request.method === 'monte_carlo_normal') {
          const pairs = [
            ['VaR', m.value_at_risk, m.value_at_risk_standard_error, f.value_at_risk, f.value_at_risk_standard_error!],
            ['ES', m.expected_shortfall, m.expected_shortfall_standard_error, f.expected_shortfall, f.expected_shortfall_standard_error!],
          ] as const;
          for (const [name, got, se, want, seNumpy] of pairs) {
            t.ok(typeof se === 'number' && se > 0, `${label(f)}: ${name} standard error reported (${se})`);
            const z = (got - want) / Math.sqrt(se * se + seNumpy * seNumpy);
            const text = `${label(f)}: ${name} ${got} ± ${se} vs NumPy ${want} ± ${seNumpy} (${f.numpy_draws} draws): ${z.toFixed(2)} combined SE`;
            monteCarlo.push({ label: `${book.id} ${text}`, z });
            t.ok(Math.abs(z) <= HARD_LIMIT, text);
          }
          continue;
        }

        // Parametric: closed form; historical: exact order statistics. Only rounding may differ.
        t.ok(close(m.value_at_risk, f.value_at_risk, 1e-9), `${label(f)}: VaR ${m.value_at_risk} vs ${f.value_at_risk}`);
        t.ok(close(m.expected_shortfall, f.expected_shortfall, 1e-9), `${label(f)}: ES ${m.expected_shortfall} vs ${f.expected_shortfall}`);
        if (f.request.method !== 'historical') continue;
        t.equal(meta.simulations, f.scenarios, `${label(f)}: one scenario per ${f.request.time_horizon}-day window`);
        t.ok(close(m.worst_loss, f.worst_loss!, 1e-9), `${label(f)}: worst P&L ${m.worst_loss} vs ${f.worst_loss}`);

        if (book.exposures.long === 0) {
          // Entirely short: the losses that make VaR and the worst loss are windows in which the
          // shorted prices rose. The figures the service matched above are those windows' P&L.
          const shorted = book.exposures.items.map((i) => i.symbol);
          for (const [which, w] of [
            ['worst', f.worst_window!],
            [`k-th worst (k = ${f.k})`, f.kth_worst_window!],
          ] as const) {
            const rises = shorted.map((sym) => `${sym} ${(w.returns[sym]! * 100).toFixed(2)} %`).join(', ');
            t.ok(
              shorted.every((sym) => w.returns[sym]! > 0),
              `${label(f)}: ${which} window ${w.start}..${w.end} is a rise of every shorted symbol (${rises})`,
            );
          }
          t.ok(close(-f.kth_worst_window!.pnl, f.value_at_risk, 1e-12), `${label(f)}: VaR is the loss of the k-th worst window`);
          t.ok(close(f.worst_window!.pnl, f.worst_loss!, 1e-12), `${label(f)}: worst_loss is the loss of the worst window`);
        }
      }
    });
  }

  await t.test('Monte Carlo: misses beyond 3 combined standard errors', async (t) => {
    const misses = monteCarlo.filter((c) => Math.abs(c.z) > 3);
    for (const c of misses) t.comment(`beyond 3 SE: ${c.label}`);
    const limit = allowedMisses(monteCarlo.length, MISS_RATE);
    const meanZ = monteCarlo.reduce((a, c) => a + c.z, 0) / Math.max(1, monteCarlo.length);
    t.comment(`${monteCarlo.length} figures, mean error ${meanZ.toFixed(2)} combined standard errors`);
    t.ok(monteCarlo.length > 0, 'Monte Carlo figures were compared');
    t.ok(misses.length <= limit, `${misses.length} of ${monteCarlo.length} figures beyond 3 combined standard errors (at most ${limit})`);
  });

  for (const w of table.what_if) {
    await t.test(`what-if on ${w.book}, T ${w.request.time_horizon}: ${w.description}`, async (t) => {
      const r = await calculate(s.base, s.key, { dataset_id: ds, ...w.request });
      t.equal(r.status, 200, r.status === 200 ? 'ok' : r.text);
      if (r.status !== 200) return;
      const got = r.body.meta.what_if ?? {};
      const union = w.union_symbols.join(', ');
      t.ok(close(got.value_at_risk, w.after.value_at_risk, 1e-9), `VaR after the trades ${got.value_at_risk} vs ${w.after.value_at_risk} (on ${union})`);
      t.ok(
        close(got.expected_shortfall, w.after.expected_shortfall, 1e-9),
        `ES after the trades ${got.expected_shortfall} vs ${w.after.expected_shortfall} (on ${union})`,
      );
      // Incremental = after − before, both on the union's scenarios: absolute tolerance 1e-6 × before.
      t.ok(
        typeof got.incremental_var === 'number' && Math.abs(got.incremental_var - w.incremental_var) <= 1e-6 * w.before.value_at_risk,
        `incremental VaR ${got.incremental_var} vs ${w.incremental_var} (before, on ${union}: ${w.before.value_at_risk})`,
      );
      t.ok(
        typeof got.incremental_es === 'number' && Math.abs(got.incremental_es - w.incremental_es) <= 1e-6 * w.before.expected_shortfall,
        `incremental ES ${got.incremental_es} vs ${w.incremental_es} (before, on ${union}: ${w.before.expected_shortfall})`,
      );
      for (const key of ['incremental_var_standard_error', 'incremental_es_standard_error']) {
        t.ok(Number.isFinite(got[key]) && got[key] >= 0, `${key} is a finite amount (${got[key]})`);
      }
    });
  }
});
