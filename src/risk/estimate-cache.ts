import { type Estimation } from '../engine/codec.js';

/** Estimates kept at most, whatever their size. */
export const MAX_CACHED_ESTIMATES = 256;

/**
 * Memory an estimate holds while cached: each distinct buffer its vectors view (an engine answer's
 * views share one), and room for the shared copies simulations make of its factor and returns
 * (`specParts`), which live as long as it does.
 */
export function estimateBytes(est: Estimation): number {
  const vectors = [est.mean, est.sampleMean, est.covariance, est.factor, est.volatility, est.returns];
  const buffers = new Set(vectors.map((v) => v.buffer));
  let bytes = est.factor.byteLength + est.returns.byteLength;
  for (const b of buffers) bytes += b.byteLength;
  return bytes;
}

interface Entry {
  pending: Promise<Estimation>;
  /** 0 until the estimate is made. */
  bytes: number;
}

/**
 * Estimates per (dataset, symbols, options), most recently used kept, within a count and a memory
 * bound (a wide book's estimate is hundreds of MB: by count alone, one owner's distinct requests
 * could fill the process's memory); failures are not kept. An estimate larger than the whole
 * bound answers its requests and is not kept.
 */
export class EstimateCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  /** `maxBytes`: the memory the kept estimates may hold together (`estimateBytes`). */
  constructor(
    private readonly maxBytes = Infinity,
    private readonly maxEntries = MAX_CACHED_ESTIMATES,
  ) {}

  /** Memory the kept estimates hold (`estimateBytes`). */
  get bytes(): number {
    return this.held;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, compute: () => Promise<Estimation>): Promise<Estimation> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.pending;
    }
    const entry: Entry = { pending: compute(), bytes: 0 };
    this.entries.set(key, entry);
    entry.pending.then(
      (est) => {
        if (this.entries.get(key) !== entry) return;
        const bytes = estimateBytes(est);
        // Kept, it would flush every other estimate and then itself.
        if (bytes > this.maxBytes) {
          this.entries.delete(key);
          return;
        }
        entry.bytes = bytes;
        this.held += bytes;
        this.evict();
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    this.evict();
    return entry.pending;
  }

  /** Drops every estimate of a dataset (it was deleted). */
  forgetDataset(datasetId: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(`${datasetId}|`)) this.drop(key);
  }

  /** The least recently used estimates dropped until the kept ones are within both bounds. */
  private evict(): void {
    while (this.entries.size > this.maxEntries || this.held > this.maxBytes) this.drop(this.entries.keys().next().value!);
  }

  private drop(key: string): void {
    this.held -= this.entries.get(key)?.bytes ?? 0;
    this.entries.delete(key);
  }
}
