// Dense kernels against the machine's multiply-add peak without FMA (issue 34): on each build that
// carries the benchmark-only operations, G multiply-adds per second of the engine's covariance
// (Σ's lower triangle, n(n+1)/2 · m) and correlation (z·Lᵀ over one block, n(n+1)/2 · BLOCK), and
// of a loop of the same shape with nothing but registers and L1 behind it (OP_BENCH_PEAK: lanes of
// s += a·x, one multiply and one add each, never fused). Efficiency = kernel rate / peak rate,
// measured in the same rounds so that a busy moment lands on both.
import { ABI } from '../../src/engine/abi.js';
import { type Engine, type OpCode } from '../../src/engine/ops.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { compileWasm, WasmEngine } from '../../src/engine/wasm-engine.js';
import { median } from './stats.js';

/** Lane counts the peak loop is compiled for; the fastest on a build is its peak. */
const PEAK_LANES = [8, 16, 24, 32, 48, 64];

export interface KernelFigures {
  /** G multiply-adds per second, medians of the rounds. */
  peak_gmadds: number;
  peak_lanes: number;
  covariance_gmadds: number;
  correlate_gmadds: number;
  /** Medians of the rounds' kernel / peak ratios. */
  covariance_efficiency: number;
  correlate_efficiency: number;
}

export interface KernelSizes {
  /** Covariance: assets × returns, and repeats per call (the synthetic returns are drawn once per call). */
  covariance: [number, number, number];
  /** Correlation: assets (a triangular factor) and blocks per call. */
  correlate: [number, number];
  rounds: number;
}

export const KERNEL_SIZES: KernelSizes = { covariance: [500, 1000, 4], correlate: [500, 16], rounds: 7 };

/** The builds with the benchmark-only operations: WASM simd128, plain x86-64 and (when it loads) this CPU's native build. */
export function kernelEngines(): Record<string, Engine> {
  const es: Record<string, Engine> = {
    'wasm-simd128': new WasmEngine(compileWasm('simd-bench'), 'wasm-simd128'),
    'native-x86-64': NativeEngine.baseline(),
  };
  try {
    es['native-host'] = NativeEngine.hostBench();
  } catch {
    // No host build with bench-ops on this machine: its figures are left out.
  }
  return es;
}

/** Seconds of one call, its status checked. */
function timed(e: Engine, op: OpCode, input: number[]): number {
  const start = performance.now();
  const out = e.call(op, new Float64Array(input));
  const seconds = (performance.now() - start) / 1000;
  if (out[0] !== 0 || !Number.isFinite(out[1])) throw new Error(`kernel benchmark op ${op} failed: status ${out[0]}`);
  return seconds;
}

/** G multiply-adds per second of the peak loop at `lanes`, about `madds` of them. */
function peakRate(e: Engine, lanes: number, madds: number): number {
  const steps = Math.ceil(madds / lanes);
  return (lanes * steps) / timed(e, ABI.OP_BENCH_PEAK, [lanes, steps, 1]) / 1e9;
}

/** Peak and both kernels on one build, `sizes.rounds` interleaved rounds. */
export function benchKernels(e: Engine, sizes: KernelSizes = KERNEL_SIZES): KernelFigures {
  const [n, m, repeats] = sizes.covariance;
  const [k, blocks] = sizes.correlate;
  const covarianceMadds = ((n * (n + 1)) / 2) * m * repeats;
  const correlateMadds = ((k * (k + 1)) / 2) * ABI.BLOCK * blocks;
  const peakMadds = covarianceMadds;
  // Warm-up: V8 moves a WASM function to optimised code between calls, never within one, so each
  // loop is first called a few times on small sizes. Then the fastest lane count, best of 3 each.
  for (let r = 0; r < 3; r++) {
    timed(e, ABI.OP_BENCH_COVARIANCE, [Math.min(n, 64), m, 1]);
    timed(e, ABI.OP_BENCH_CORRELATE, [Math.min(k, 64), 1]);
    for (const l of PEAK_LANES) peakRate(e, l, 1e6);
  }
  let lanes = PEAK_LANES[0]!;
  let best = 0;
  for (const l of PEAK_LANES) {
    const rate = Math.max(peakRate(e, l, peakMadds / 4), peakRate(e, l, peakMadds / 4), peakRate(e, l, peakMadds / 4));
    if (rate > best) [best, lanes] = [rate, l];
  }
  const peak: number[] = [];
  const cov: number[] = [];
  const cor: number[] = [];
  for (let r = 0; r < sizes.rounds; r++) {
    peak.push(peakRate(e, lanes, peakMadds));
    cov.push(covarianceMadds / timed(e, ABI.OP_BENCH_COVARIANCE, [n, m, repeats]) / 1e9);
    cor.push(correlateMadds / timed(e, ABI.OP_BENCH_CORRELATE, [k, blocks]) / 1e9);
  }
  return {
    peak_gmadds: median(peak),
    peak_lanes: lanes,
    covariance_gmadds: median(cov),
    correlate_gmadds: median(cor),
    covariance_efficiency: median(cov.map((c, i) => c / peak[i]!)),
    correlate_efficiency: median(cor.map((c, i) => c / peak[i]!)),
  };
}

/** One line per build for the progress output. */
export function kernelLine(build: string, f: KernelFigures): string {
  const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
  return `${build}: peak ${f.peak_gmadds.toFixed(2)} G madd/s (${f.peak_lanes} lanes), covariance ${f.covariance_gmadds.toFixed(2)} (${pct(f.covariance_efficiency)}), z·Lᵀ ${f.correlate_gmadds.toFixed(2)} (${pct(f.correlate_efficiency)})`;
}
