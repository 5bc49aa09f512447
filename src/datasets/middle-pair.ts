// The two middle values of a column, in linear time on any data with a spread: the medians the
// quality report's robust scale needs (quality.ts).

const BUCKETS = 1024;
const counts = new Int32Array(BUCKETS + 1);

/**
 * The k-th and (k+1)-th smallest of a[0..n), k + 1 < n, no NaN; reorders a. Quickselect's
 * comparisons go either way at random, each a mispredicted branch; this buckets the values by
 * ⌊(x − min)·1024 / (max − min)⌋ (monotone in x), counts them without branching, keeps only the
 * bucket(s) holding ranks k and k + 1 and goes on within them: linear on any data that has a spread.
 * What it cannot spread in three rounds, or fewer than 64 values, it sorts (n log n at worst).
 */
function selectPair(a: Float64Array, n: number, k: number, depth = 0): [number, number] {
  let min = a[0]!;
  let max = min;
  for (let i = 1; i < n; i++) {
    const x = a[i]!;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (min === max) return [min, min];
  const scale = BUCKETS / (max - min);
  if (n < 64 || depth === 3 || !(scale < Infinity)) {
    a.subarray(0, n).sort();
    return [a[k]!, a[k + 1]!];
  }
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[((a[i]! - min) * scale) | 0]!++; // in 0..BUCKETS
  let before = 0;
  let b = 0;
  while (before + counts[b]! <= k) before += counts[b++]!;
  let b2 = b;
  if (before + counts[b]! === k + 1) while (counts[++b2] === 0); // rank k + 1 opens the next non-empty bucket
  const span = b2 - b;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    // One unsigned comparison for b ≤ bucket ≤ b2: false for nearly all values, so well predicted.
    if (((((x - min) * scale) | 0) - b) >>> 0 <= span) a[c++] = x; // c ≤ i: overwrites only values already read
  }
  return selectPair(a, c, k - before, depth + 1);
}

/** The two middle values of a[0..n), n ≥ 1 (the same one twice when n is odd); reorders a. */
export function middle(a: Float64Array, n: number): [number, number] {
  if (n === 1) return [a[0]!, a[0]!];
  const pair = selectPair(a, n, (n - 1) >> 1);
  return n % 2 === 1 ? [pair[0], pair[0]] : pair;
}
