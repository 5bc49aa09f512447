// The four engine builds a differential test runs, each with its own task split, and the synthetic
// dataset their requests name, stored through the real file store.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { EstimateCache } from '../../src/risk/estimate-cache.js';
import { calculate, type CalculatorDeps } from '../../src/risk/calculate.js';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { withCurrencies } from '../../src/datasets/currencies.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { ABI } from '../../src/engine/abi.js';
import { joinedInput, type Engine, type EngineExecutor } from '../../src/engine/ops.js';
import { ApiError } from '../../src/contract/errors.js';
import { type CalculateResponseBody } from '../../src/contract/responses.js';
import { FileDatasetStore } from '../../src/datasets/dataset-store.js';
import { validateRequest } from './calculation-domain.js';
import { mulberry32 } from './mulberry32.js';
import { gaussian } from './price-series.js';
import { bitJson } from './bit-json.js';
import { fourEngines } from './four-engines.js';

/** Synthetic daily prices: one market factor plus noise, a late starter and scattered gaps. */
export function syntheticWideCsv(symbols: number, dates: number, seed = 7): string {
  const rand = mulberry32(seed);
  const normal = () => gaussian(rand);
  const names = Array.from({ length: symbols }, (_, i) => `S${String(i).padStart(4, '0')}`);
  const vol = names.map((_, i) => 0.006 + (0.02 * ((i * 7919) % 101)) / 100);
  const price = names.map(() => 50 + 100 * rand());
  const lines = ['date,' + names.join(',')];
  const day = new Date(Date.UTC(2018, 0, 1));
  for (let d = 0; d < dates; d++) {
    do day.setUTCDate(day.getUTCDate() + 1);
    while (day.getUTCDay() === 0 || day.getUTCDay() === 6);
    const market = normal();
    const cells = price.map((p, i) => {
      price[i] = p * Math.exp(0.0002 + vol[i]! * (0.6 * market + 0.8 * normal()));
      const missing = (i === 1 && d < 50) || (i === 2 && d % 97 === 5);
      return missing ? '' : price[i]!.toPrecision(10);
    });
    lines.push(`${day.toISOString().slice(0, 10)},${cells.join(',')}`);
  }
  return lines.join('\n') + '\n';
}

export const OWNER = 'property';

/** A dataset stored through the real file store, and its symbols. */
export async function storeSyntheticDataset(
  symbols: number,
  dates: number,
): Promise<{ store: FileDatasetStore; id: string; symbols: string[]; lastDate: string }> {
  const store = new FileDatasetStore(mkdtempSync(path.join(os.tmpdir(), 'risk-property-')));
  await store.open();
  const dataset = await readCsv(Readable.from([Buffer.from(syntheticWideCsv(symbols, dates))]), { maxSymbols: 5000 });
  const saved = await store.save(OWNER, dataset);
  return { store, id: saved.id, symbols: dataset.symbols, lastDate: dataset.dates[dataset.dates.length - 1]! };
}

/**
 * The synthetic dataset made multi-currency: every third symbol in EUR, every fifth in GBP (the
 * rest USD), with FX walks EURUSD, GBPUSD and USDJPY, so that conversions between
 * the four currencies go direct, inverse and through a cross (USD), and every one exists.
 */
export async function addMultiCurrencyDataset(
  store: FileDatasetStore,
  symbols: number,
  dates: number,
): Promise<{ id: string; symbols: string[]; lastDate: string }> {
  const plain = await readCsv(Readable.from([Buffer.from(syntheticWideCsv(symbols, dates))]), { maxSymbols: 5000 });
  const rand = mulberry32(31);
  const pairs: [string, number, number][] = [
    ['EURUSD', 1.1, 0.005],
    ['GBPUSD', 1.3, 0.004],
    ['USDJPY', 140, 0.006],
  ];
  const n = plain.symbols.length;
  const m = n + pairs.length;
  const prices = new Float64Array(plain.dates.length * m);
  const level = pairs.map(([, start]) => start);
  for (let r = 0; r < plain.dates.length; r++) {
    prices.set(plain.prices.subarray(r * n, (r + 1) * n), r * m);
    pairs.forEach(([, , vol], k) => {
      level[k] = Number((level[k]! * Math.exp(vol * gaussian(rand))).toPrecision(10));
      prices[r * m + n + k] = level[k]!;
    });
  }
  const currencies = Object.fromEntries(plain.symbols.flatMap((s, i) => (i % 3 === 0 ? [[s, 'EUR']] : i % 5 === 0 ? [[s, 'GBP']] : [])));
  const dataset = withCurrencies(
    { ...plain, symbols: [...plain.symbols, ...pairs.map(([p]) => p)], prices },
    { currencies: JSON.stringify(currencies), base_currency: 'USD' },
  );
  const saved = await store.save(OWNER, dataset);
  return { id: saved.id, symbols: plain.symbols, lastDate: plain.dates[plain.dates.length - 1]! };
}

export interface Build {
  name: string;
  deps: CalculatorDeps;
}

/**
 * WASM simd128, WASM scalar, native for this CPU and native x86-64, each with its own task split:
 * at most 1, 3, 2 and 7 simulate tasks (from one block each) whose partials are finalized in 1, 3,
 * 2 and 7 parts (as many as there are partials), so the builds also compare finalize splits.
 */
/** Per build, the finalizes it ran by their number of parts (OP_RUN, OP_FINALIZE: 1; OP_FINALIZE_SPLIT: its first word). */
export const finalizeSplits = new Map<string, Map<number, number>>();

/** `engine` called in this thread, each finalize tallied in `finalizeSplits` under `name`. */
function tallied(name: string, engine: Engine): EngineExecutor {
  const direct = new DirectExecutor(engine);
  const seen = finalizeSplits.get(name) ?? finalizeSplits.set(name, new Map()).get(name)!;
  return {
    run(op, input, signal, lead, _answer, sums) {
      const parts = op === ABI.OP_FINALIZE || op === ABI.OP_RUN ? 1 : op === ABI.OP_FINALIZE_SPLIT ? joinedInput(input)[0]! : 0;
      if (parts > 0) seen.set(parts, (seen.get(parts) ?? 0) + 1);
      return direct.run(op, input, signal, lead, 'own', sums);
    },
  };
}

export function fourBuilds(store: FileDatasetStore): Build[] {
  const [simd, scalar, native, baseline] = fourEngines();
  const engines: [string, Engine, number][] = [
    ['wasm-simd128', simd, 1],
    ['wasm-scalar', scalar, 3],
    ['native', native, 2],
    ['native-x86-64', baseline, 7],
  ];
  return engines.map(([name, engine, maxBatches]) => ({
    name,
    deps: {
      datasets: store,
      executor: tallied(name, engine),
      estimates: new EstimateCache(),
      engine: { build: engine.build, version: engine.version, threads: maxBatches },
      maxBatches,
      // Every estimation of a build with several tasks is split over them: the builds that do
      // must agree bit for bit with those that do not.
      minSplitEstimationWork: 0,
      // Likewise every simulation over its tasks, and every finalize into as many parts.
      batchSplit: { minBlocksPerBatch: 1, finalizeParts: maxBatches },
      timeoutMs: 3_600_000,
    },
  }));
}

/** A refusal keeps the `type` of each validation issue it lists (e.g. `overflow`), and apart each one's `loc` as JSON. */
export type Outcome =
  { ok: true; body: CalculateResponseBody } | { ok: false; status: number; code: string; message: string; issues: string[]; locs: string[] };

/** One calculation through validation and the risk layer; a non-contract failure throws. */
export async function outcomeOf(request: unknown, deps: CalculatorDeps): Promise<Outcome> {
  try {
    return { ok: true, body: await calculate(validateRequest(request), OWNER, deps) };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const listed = Array.isArray(e.extra.errors) ? (e.extra.errors as { type?: unknown; loc?: unknown }[]) : [];
    return {
      ok: false,
      status: e.status,
      code: e.code,
      message: e.message,
      issues: listed.map((i) => String(i.type)),
      locs: listed.map((i) => JSON.stringify(i.loc)),
    };
  }
}

/** What must be identical between builds: the response without its id, timings and engine name. */
export function comparable(o: Outcome): string {
  if (!o.ok) return bitJson(o);
  return bitJson({ ...o.body.meta, calculation_id: null, timing_ms: null, engine: null });
}
