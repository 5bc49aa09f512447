import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';
import { engineNormalNs, normalsEngines } from './engine-bench.js';
import { median } from './stats.js';
import { type PreparedWorkload, triangularFactor } from './workloads.js';

export interface NumpyResult {
  median_ms: number;
  var: number;
  es: number;
  normal_ns: number | null;
  numpy: string;
}

/** Whether `python3` has NumPy; tries pip, then Debian's python3-numpy, once (and threadpoolctl by pip). */
export function ensureNumpy(): boolean {
  const has = () => spawnSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;
  if (has()) return true;
  spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'numpy'], { stdio: 'ignore' });
  if (!has()) spawnSync('bash', ['-c', 'apt-get install -y -qq python3-numpy'], { stdio: 'ignore' });
  // threadpoolctl names the BLAS and the kernel NumPy runs (the report records it); optional.
  if (spawnSync('python3', ['-c', 'import threadpoolctl'], { stdio: 'ignore' }).status !== 0)
    spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'threadpoolctl'], { stdio: 'ignore' });
  return has();
}

/** Whether `python3` has SciPy (the options baseline's ndtr) besides NumPy; tries pip, then Debian's python3-scipy, once. */
export function ensureScipy(): boolean {
  const has = () => spawnSync('python3', ['-c', 'import scipy.special'], { stdio: 'ignore' }).status === 0;
  if (!ensureNumpy()) return false;
  if (has()) return true;
  spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'scipy'], { stdio: 'ignore' });
  if (!has()) spawnSync('bash', ['-c', 'apt-get install -y -qq python3-scipy'], { stdio: 'ignore' });
  return has();
}

export function runNumpy(p: PreparedWorkload, repeats: number, normals = 0): NumpyResult {
  const n = p.symbols.length;
  const L = Array.from({ length: n }, (_, i) => Array.from(triangularFactor(p).subarray(i * n, (i + 1) * n)));
  const job = {
    mean: Array.from(p.estimation.mean),
    cholesky: L,
    weights: Array.from(p.model.books[0]!.weights),
    portfolio_value: p.model.books[0]!.capital,
    horizon: p.model.horizon,
    simulations: p.model.simulations,
    confidence: p.model.confidence,
    rebalanced: p.model.rebalanced,
    dof: p.model.method === 'monte_carlo_student_t' ? p.model.degreesOfFreedom : null,
    repeats,
    normals,
  };
  return runBaseline(job) as NumpyResult;
}

/** NumPy's ns per standard normal: the median of 3 draws of `count`, in a fresh process. */
export function numpyNormalNs(count: number): number {
  return (runBaseline({ normals_only: count }) as { normal_ns: number }).normal_ns;
}

/**
 * NumPy ns per normal / WASM simd128 ns per normal, measured `rounds` times alternately (WASM,
 * NumPy, WASM, …) so that a busy moment on a shared machine lands on both sides; the median ratio.
 */
export function wasmOverNumpyPerNormal(count: number, rounds: number): { ratio: number; wasm_ns: number; numpy_ns: number } {
  const wasm = normalsEngines()['wasm-simd128'];
  const ratios: number[] = [];
  const wasmNs: number[] = [];
  const numpyNs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    wasmNs.push(engineNormalNs(wasm, count, 3));
    numpyNs.push(numpyNormalNs(count));
    ratios.push(numpyNs[r]! / wasmNs[r]!);
  }
  return { ratio: median(ratios), wasm_ns: median(wasmNs), numpy_ns: median(numpyNs) };
}

export interface NumpyWideResult {
  median_ms: number;
  var: number;
  /** threadpoolctl's report of the BLAS and its kernel, when installed. */
  blas: unknown;
  numpy: string;
}

/**
 * A desk's NumPy from prices (dates × n) to the 99 % 1-day VaR of the equal-weight book: np.cov,
 * Cholesky (jittered when singular), z @ Lᵀ; on `threads` BLAS threads, the median of `repeats`.
 */
export function runNumpyWide(prices: number[][], simulations: number, repeats: number, threads: number): NumpyWideResult {
  return runBaseline({ wide: prices, simulations, confidence: 0.99, repeats }, threads) as NumpyWideResult;
}

export interface NumpyScalingResult {
  points: { assets: number; median_ms: number; var: number }[];
  blas: unknown;
  numpy: string;
}

/**
 * `runNumpyWide` on the first n columns of a raw little-endian float64 file of prices
 * [date][asset], for each n of `assets`, on one BLAS thread (the engine's single-thread figures):
 * the median of `repeats` (one run from 2,000 assets).
 */
export function runNumpyScaling(file: string, dates: number, assets: number[], simulations: number, repeats: number): NumpyScalingResult {
  return runBaseline({ scaling: file, dates, assets, simulations, confidence: 0.99, repeats }) as NumpyScalingResult;
}

function runBaseline(job: object, threads = 1): unknown {
  // One thread unless asked (the engine's single-thread figures); NumPy gets its best BLAS
  // kernels (the variables that hold OpenBLAS to older ones are removed for this command only).
  const t = String(threads);
  const env: NodeJS.ProcessEnv = { ...process.env, OMP_NUM_THREADS: t, OPENBLAS_NUM_THREADS: t, MKL_NUM_THREADS: t };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  const r = spawnSync('python3', [path.join(ROOT, 'bench/numpy_baseline.py')], { input: JSON.stringify(job), encoding: 'utf8', env, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`numpy baseline failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as unknown;
}
