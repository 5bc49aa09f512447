// An independent TypeScript twin of filtered history's bootstrap (engine/core/src/filter/bootstrap.rs,
// api.md §16): Philox4x32-10 seeding one xoshiro256++ stream per path, rows drawn by the high word
// of a 64 × 64-bit product, and the variance recursion carried along each path. BigInt arithmetic
// throughout, written from the published algorithms, not from the engine's code.

const M32 = 0xffffffffn;
const M64 = (1n << 64n) - 1n;

export function philox(counter: bigint[], key: bigint[]): bigint[] {
  let c = [...counter];
  const k = [...key];
  for (let round = 0; round < 10; round++) {
    if (round > 0) {
      k[0] = (k[0]! + 0x9e3779b9n) & M32;
      k[1] = (k[1]! + 0xbb67ae85n) & M32;
    }
    const p0 = 0xd2511f53n * c[0]!;
    const p1 = 0xcd9e8d57n * c[2]!;
    c = [(p1 >> 32n) ^ c[1]! ^ k[0]!, p1 & M32, (p0 >> 32n) ^ c[3]! ^ k[1]!, p0 & M32];
  }
  return c;
}

const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M64;

/** xoshiro256++ of path `path` under `seed`, as the engine seeds a block's stream. */
export function pathStream(seed: number, path: number): () => bigint {
  const s64 = BigInt(seed);
  const key = [s64 & M32, s64 >> 32n];
  const [lo, hi] = [BigInt(path) & M32, BigInt(path) >> 32n];
  const a = philox([lo, hi, 0n, 0n], key);
  const b = philox([lo, hi, 1n, 0n], key);
  const join = (x: bigint, y: bigint) => x | (y << 32n);
  const s: bigint[] = [join(a[0]!, a[1]!), join(a[2]!, a[3]!), join(b[0]!, b[1]!), join(b[2]!, b[3]!)];
  // The all-zero state is the generator's only fixed point.
  if (!s.some((x) => x !== 0n)) s[0] = 1n;
  return () => {
    const result = (rotl((s[0]! + s[3]!) & M64, 23n) + s[0]!) & M64;
    const t = (s[1]! << 17n) & M64;
    s[2] = s[2]! ^ s[0]!;
    s[3] = s[3]! ^ s[1]!;
    s[1] = s[1]! ^ s[2]!;
    s[0] = s[0]! ^ s[3]!;
    s[2] = s[2]! ^ t;
    s[3] = rotl(s[3]!, 45n);
    return result;
  };
}

/** The rows path `path` draws: T indices uniform on 0..m. */
export function drawnRows(seed: number, path: number, horizon: number, m: number): number[] {
  const next = pathStream(seed, path);
  return Array.from({ length: horizon }, () => Number((next() * BigInt(m)) >> 64n));
}

export interface Recursion {
  omega: number;
  alpha: number;
  beta: number;
}

/**
 * One path's T-day log return per asset: σ² from σ_{m+1}², r̃ = σ·z_t of each drawn row, σ² updated
 * by the asset's recursion. `z` is [row][asset].
 */
export function pathReturns(rows: number[], z: number[][], current: number[], recursions: Recursion[]): number[] {
  return current.map((sigma, i) => {
    let v = sigma * sigma;
    let sum = 0;
    for (const t of rows) {
      const r = Math.sqrt(v) * z[t]![i]!;
      sum += r;
      v = recursions[i]!.omega + recursions[i]!.alpha * r * r + recursions[i]!.beta * v;
    }
    return sum;
  });
}
