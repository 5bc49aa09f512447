// Seeded uniform draws for the ES backtest's simulated p-value. Not a twin of the engine's generator
// (xoshiro256++ over 64-bit words, engine/core/src/rng.rs): the backtest statistics are computed on
// this side, from their own stream; the generator is checked against its published outputs.

/**
 * The 32-bit outputs of xoshiro128** (Blackman and Vigna) from a 128-bit state (not all zero), as
 * unsigned words; the state array is left as given.
 */
export function xoshiro128StarStar(state: Uint32Array): () => number {
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  return () => {
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return r;
  };
}

/** fmix32 of MurmurHash3: a bijection of 32-bit words that spreads every input bit. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * Uniform draws in the open interval (0, 1) with 53 random bits each, from xoshiro128** (Blackman and
 * Vigna) whose 128-bit state is derived from the seed's low and high 32 bits.
 */
export function uniformSource(seed: number): () => number {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a whole number in 0..2^53 − 1, got ${String(seed)}`);
  let lo = seed >>> 0;
  let hi = Math.floor(seed / 4294967296) >>> 0;
  const s = new Uint32Array(4);
  for (let i = 0; i < 4; i++) {
    lo = (lo + 0x9e3779b9) >>> 0;
    hi = (hi + 0x6a09e667) >>> 0;
    s[i] = mix32(lo ^ mix32(hi));
  }
  if ((s[0]! | s[1]! | s[2]! | s[3]!) === 0) s[0] = 1;
  const next = xoshiro128StarStar(s);
  return () => {
    const u = ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992;
    return u === 0 ? 2 ** -54 : u;
  };
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
