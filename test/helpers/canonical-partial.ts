import { ABI } from '../../src/engine/abi.js';

/**
 * A partial (OP_SIMULATE's layout: header, books, weights, the shared lanes, then per book its P&L,
 * worst rows and, with no lanes, its asset tails) with each tail's values ascending: a tail is a set
 * the merge sorts, so two partials that hold the same tails in other orders compare equal.
 */
export function canonicalPartial(p: Float64Array): Float64Array {
  const word = (i: number) => p[i]!;
  const [n, books, lanes, count, worst, k] = [word(2), word(4), word(7), word(9), word(10), word(11)];
  const held = p[13] === 1 ? 1 : k;
  const out = Float64Array.from(p);
  const sort = (at: number, lists: number, size: number) => {
    for (let i = 0; i < lists; i++) out.subarray(at + i * size, at + (i + 1) * size).sort();
  };
  let at = ABI.PARTIAL_HEADER_LEN + books * (1 + n) + (p[12] === 1 ? count : 0);
  sort(at, lanes * n, held);
  at += lanes * n * held;
  for (let b = 0; b < books; b++) {
    at += count + worst * (2 + n);
    if (lanes === 0) {
      sort(at, n, k);
      at += n * k;
    }
  }
  if (at !== p.length) throw new Error(`partial layout: ${at} words read of ${p.length}`);
  return out;
}
