import { ABI } from '../engine/abi.js';
import { type KeptScenarios } from './kept-scenarios.js';

/**
 * Kept scenarios whose per-asset tails are pooled, in place, into one batch: each asset's k-th
 * smallest e^{R} − 1 over all batches (and k-th smallest of −(e^{R} − 1)), the other batches
 * keeping none. Finalize only takes each asset's k-th smallest over the partials' tails, so the
 * engine passes that one value on (a ranked lead: `simulate_kept`): the same figures, bit for bit,
 * while every tick's partials carry one tail value per asset and lane instead of k (with 100
 * assets × 100,000 scenarios, 200 words instead of 200,000: 1.6 MB less to encode, move and decode
 * on every tick). `scenarios` is the model's count. Returns `kept` unchanged where nothing
 * can be pooled (one batch, or batches all smaller than the tail).
 *
 * Each batch's buffer is OP_UNITS's answer: [count, units(count), n, k, smallest(n·k), largest(n·k)];
 * the pool's becomes [count, units(count), n, k, k-th smallest(n), k-th largest(n)] (its length
 * tells the engine it is ranked).
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
  const kth = new Float64Array(2 * n);
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
      kth[lane * n + i] = pool[k - 1]!;
    }
  }
  // Written after every pool is read: the owner's k tails are among them.
  into.set(kth, parts[owner]!.at);
  const units = kept.units.map((u, b) => {
    const p = parts[b]!;
    if (b === owner) return u.subarray(0, p.at + 2 * n);
    u[2 + p.count] = 0;
    return u.subarray(0, p.at);
  });
  return { batches: kept.batches, units, bytes: kept.bytes };
}
