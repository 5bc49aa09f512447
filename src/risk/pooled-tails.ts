import { ABI } from '../engine/abi.js';
import { type KeptScenarios } from './kept-scenarios.js';

/**
 * Kept scenarios whose per-asset tails are pooled, in place, into one batch: each asset's k
 * smallest e^{R} − 1 over all batches (and k smallest of −(e^{R} − 1)), the other batches keeping
 * none. Finalize only takes each asset's k-th smallest over the partials' tails, which is the
 * largest of the pooled k: the same figures, bit for bit, while every tick's partials carry n·k tail
 * values per lane instead of n·k per batch (with 100 assets × 100,000 scenarios, 1.6 MB of 5.7 MB
 * less to encode, move and decode). `scenarios` is the model's count. Returns `kept` unchanged
 * where nothing can be pooled (one batch, or batches all smaller than the tail).
 *
 * Each batch's buffer is OP_UNITS's answer: [count, units(count), n, k, smallest(n·k), largest(n·k)].
 */
export function poolTails(kept: KeptScenarios, scenarios: number): KeptScenarios {
  if (kept.units.length < 2) return kept;
  const parts = kept.units.map((u, b) => {
    const count = u[0]!;
    const { first, end } = kept.batches[b]!;
    return { count, n: u[1 + count]!, k: u[2 + count]!, at: 3 + count, inBatch: Math.min(end * ABI.BLOCK, scenarios) - first * ABI.BLOCK };
  });
  // A batch holding fewer tail values than scenarios holds exactly the calculation's k: it takes the pool.
  const owner = parts.findIndex((p) => p.k < p.inBatch);
  const n = parts[0]!.n;
  if (owner < 0 || parts.some((p) => p.n !== n)) return kept;
  const k = parts[owner]!.k;
  const into = kept.units[owner]!;
  for (let lane = 0; lane < 2; lane++) {
    for (let i = 0; i < n; i++) {
      const pool = new Float64Array(parts.reduce((a, p) => a + p.k, 0));
      let at = 0;
      parts.forEach((p, b) => {
        const from = p.at + (lane * n + i) * p.k;
        pool.set(kept.units[b]!.subarray(from, from + p.k), at);
        at += p.k;
      });
      // A typed array sorts −0 before +0, as the engine's order keys rank them.
      pool.sort();
      into.set(pool.subarray(0, k), parts[owner]!.at + (lane * n + i) * k);
    }
  }
  const units = kept.units.map((u, b) => {
    if (b === owner) return u;
    const p = parts[b]!;
    u[2 + p.count] = 0;
    return u.subarray(0, p.at);
  });
  return { batches: kept.batches, units, bytes: kept.bytes };
}
