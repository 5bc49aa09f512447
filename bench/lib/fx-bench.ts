// The cost of FX as a risk factor (issue 30): a book of foreign stocks (EUR, GBP and JPY, reported
// in USD: 20 stocks + 3 FX columns = 23 factors) against a book of 23 stocks in the reporting
// currency, at equal factor count, through the risk layer on one WASM simd128 thread. Two pairs,
// interleaved in the same rounds: each book as a one-book batch prices it (its figures, no FX
// effect: the FX factors' own cost), and each as calculate answers it (the FX answer with meta.fx,
// which prices the book a second time with FX returns at 0 on the same scenarios).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { calculate, calculateBatch, type CalculatorDeps } from '../../src/risk/calculate.js';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { withCurrencies } from '../../src/datasets/currencies.js';
import { FileDatasetStore } from '../../src/datasets/dataset-store.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { EstimateCache } from '../../src/risk/estimate-cache.js';
import { type BatchRequest, type CalculateRequest } from '../../src/contract/schemas.js';
import { syntheticWideCsv } from '../../test/helpers/four-builds.js';
import { interleaved, pairedRatio } from './stats.js';

export interface FxFigures {
  factors: number;
  simulations: number;
  horizon: number;
  /** Each book as a one-book batch (no FX effect computed): the FX factors' own cost. */
  plain_book_ms: number;
  fx_book_ms: number;
  /** FX book ms / plain book ms, the median of the rounds' ratios (issue 30's target: ≤ 1.3). */
  fx_book_over_plain: number;
  /** Each as calculate answers it: the FX one with meta.fx (the book priced again without FX). */
  plain_ms: number;
  fx_ms: number;
  /** FX ms / plain ms with meta.fx, the median of the rounds' ratios. */
  fx_over_plain: number;
}

const OWNER = 'bench';

/** 23 synthetic series; the multi-currency copy names the last three FX columns and puts the stocks in EUR, GBP and JPY. */
async function datasets(store: FileDatasetStore): Promise<{ plain: string; fx: string; names: string[] }> {
  const base = await readCsv(Readable.from([Buffer.from(syntheticWideCsv(23, 1_000, 11))]), { maxSymbols: 100 });
  const names = base.symbols.slice(0, 20);
  const renamed = { ...base, symbols: [...names, 'EURUSD', 'GBPUSD', 'USDJPY'] };
  const currencies = Object.fromEntries(names.map((s, i) => [s, ['EUR', 'GBP', 'JPY'][i % 3]!]));
  const fx = withCurrencies(renamed, { currencies: JSON.stringify(currencies), base_currency: 'USD' });
  const [p, f] = [await store.save(OWNER, base), await store.save(OWNER, fx)];
  return { plain: p.id, fx: f.id, names: base.symbols };
}

export async function benchFxFactors(simulations: number, repeats: number): Promise<FxFigures> {
  const store = new FileDatasetStore(mkdtempSync(path.join(os.tmpdir(), 'risk-bench-fx-')));
  await store.open();
  const engine = instantiateEngine(resolveEngineSource('wasm'));
  const deps: CalculatorDeps = {
    datasets: store,
    executor: new DirectExecutor(engine),
    estimates: new EstimateCache(),
    engine: { build: engine.build, version: engine.version, threads: 1 },
    maxBatches: 1,
    timeoutMs: 3_600_000,
  };
  const ids = await datasets(store);
  const request = (dataset: string, symbols: string[]): CalculateRequest => ({
    dataset_id: dataset,
    method: 'monte_carlo_normal',
    method_options: { seed: 7 },
    currency: 'USD',
    positions: symbols.map((symbol, i) => ({ symbol, quantity: 100 + 10 * i })),
    confidence_level: 0.99,
    time_horizon: 10,
    simulations,
  });
  const plain = request(ids.plain, ids.names);
  const fx = request(ids.fx, ids.names.slice(0, 20));
  const batchOf = ({ positions, ...rest }: CalculateRequest): BatchRequest => ({ ...rest, books: [{ id: 'book', positions: positions! }] });
  const [plainBook, fxBook] = [batchOf(plain), batchOf(fx)];
  // All answer before timing, the FX calculate with its effect and the FX batch book with its FX
  // figures: its VaR is calculate's, on the same scenarios (estimates cached, as a desk's repeats are).
  const check = await calculate(fx, OWNER, deps);
  if (!(check.meta.fx && check.meta.fx.var_without_fx > 0)) throw new Error('FX bench: no FX effect computed');
  const book = (await calculateBatch(fxBook, OWNER, deps)).meta.books[0]!;
  if (book.metrics.value_at_risk !== check.meta.metrics.value_at_risk) throw new Error('FX bench: the batch book is not priced as calculate prices it');
  await calculate(plain, OWNER, deps);
  await calculateBatch(plainBook, OWNER, deps);
  const { ms, samples } = await interleaved(
    {
      plainBook: async () => void (await calculateBatch(plainBook, OWNER, deps)),
      fxBook: async () => void (await calculateBatch(fxBook, OWNER, deps)),
      plain: async () => void (await calculate(plain, OWNER, deps)),
      fx: async () => void (await calculate(fx, OWNER, deps)),
    },
    repeats,
  );
  return {
    factors: 23,
    simulations,
    horizon: 10,
    plain_book_ms: ms.plainBook!,
    fx_book_ms: ms.fxBook!,
    fx_book_over_plain: pairedRatio(samples, 'fxBook', 'plainBook'),
    plain_ms: ms.plain!,
    fx_ms: ms.fx!,
    fx_over_plain: pairedRatio(samples, 'fx', 'plain'),
  };
}
