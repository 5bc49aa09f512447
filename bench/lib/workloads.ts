import { createReadStream } from 'node:fs';
import path from 'node:path';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { selectColumns, type Dataset } from '../../src/datasets/dataset.js';
import { portfolioBook, type Estimation } from '../../src/engine/codec.js';
import { ABI } from '../../src/engine/abi.js';
import { type EngineExecutor } from '../../src/engine/ops.js';
import { ROOT } from '../../src/paths.js';
import { estimateModel, type Method, type ModelInput } from '../../src/risk/engine-run.js';
import { generateWide461 } from '../../test/helpers/generate-prices.js';

export interface Workload {
  id: string;
  title: string;
  file: 'sample' | 'wide461';
  assets: number;
  simulations: number;
  horizon: number;
  method: Method;
  rebalanced: boolean;
}

/** The workloads of issue 4; `quick` divides simulations by 5 (W2 by 10). */
export function workloads(quick: boolean): Workload[] {
  const q = (n: number, d = 5) => (quick ? Math.max(1000, Math.floor(n / d)) : n);
  return [
    {
      id: 'W1',
      title: '10 assets × 100k × 10 d, buy-and-hold',
      file: 'sample',
      assets: 10,
      simulations: q(100_000),
      horizon: 10,
      method: 'monte_carlo_normal',
      rebalanced: false,
    },
    {
      id: 'W2',
      title: '20 assets × 1M × 10 d, buy-and-hold',
      file: 'wide461',
      assets: 20,
      simulations: q(1_000_000, 10),
      horizon: 10,
      method: 'monte_carlo_normal',
      rebalanced: false,
    },
    {
      id: 'W3',
      title: '10 assets × 100k × 10 d, rebalanced',
      file: 'sample',
      assets: 10,
      simulations: q(100_000),
      horizon: 10,
      method: 'monte_carlo_normal',
      rebalanced: true,
    },
    {
      id: 'W4',
      title: 'Student-t 10 assets × 100k × 10 d',
      file: 'sample',
      assets: 10,
      simulations: q(100_000),
      horizon: 10,
      method: 'monte_carlo_student_t',
      rebalanced: false,
    },
    {
      id: 'W5',
      title: '461 assets × 20k × 1 d',
      file: 'wide461',
      assets: 461,
      simulations: q(20_000),
      horizon: 1,
      method: 'monte_carlo_normal',
      rebalanced: false,
    },
  ];
}

const cache = new Map<string, Promise<Dataset>>();
export function loadDataset(file: Workload['file']): Promise<Dataset> {
  const p = file === 'sample' ? path.join(ROOT, 'examples/prices_wide_sample.csv') : generateWide461();
  if (!cache.has(p)) cache.set(p, readCsv(createReadStream(p), { maxSymbols: 5000 }));
  return cache.get(p)!;
}

export interface PreparedWorkload {
  workload: Workload;
  symbols: string[];
  estimation: Estimation;
  model: ModelInput;
}

export async function prepare(exec: EngineExecutor, w: Workload, overrides: Partial<Workload> = {}): Promise<PreparedWorkload> {
  const workload = { ...w, ...overrides };
  const dataset = await loadDataset(workload.file);
  const symbols = dataset.symbols.slice(0, workload.assets);
  const estimation = await estimateModel(exec, selectColumns(dataset, symbols), dataset.dates.length, symbols.length, {
    lookback: 0,
    zeroDrift: false,
    ewmaLambda: null,
  });
  const model: ModelInput = {
    method: workload.method,
    rebalanced: workload.rebalanced,
    books: [portfolioBook(1_000_000, new Float64Array(symbols.length).fill(1 / symbols.length))],
    comparison: 'none',
    horizon: workload.horizon,
    confidence: 0.99,
    simulations: workload.simulations,
    degreesOfFreedom: 5,
    seed: 20240611,
    antithetic: false,
    importanceSampling: false,
    zeroDrift: false,
    histogramBins: 50,
  };
  return { workload, symbols, estimation, model };
}

/** The workload's n×n Cholesky factor: the plain baselines (TypeScript, NumPy) sample through it. */
export function triangularFactor(p: PreparedWorkload): Float64Array {
  if (p.estimation.factorColumns !== ABI.FACTOR_TRIANGULAR) throw new Error(`${p.workload.id} samples through loadings, not a Cholesky factor`);
  return p.estimation.factor;
}
