import { type StoredDataset } from './dataset-file.js';

/** Decoded datasets kept in memory, by their total size (prices, symbol names, dates). */
const CACHE_BYTES = 512 * 1024 * 1024;

interface Entry {
  stored: StoredDataset;
  bytes: number;
  /** When the store last confirmed the dataset still exists (performance.now() ms). */
  confirmedAt: number;
}

/** A string's cost in memory: two bytes a character (the worst case) and the object around it. */
const STRING_OVERHEAD = 32;

/**
 * What a decoded dataset holds in memory. Names and dates count too: 5,000 names of 5 KB on two
 * dates would otherwise cost almost nothing against the budget (review M4).
 */
export function datasetBytes(stored: StoredDataset): number {
  let bytes = stored.dataset.prices.byteLength;
  for (const s of stored.dataset.symbols) bytes += STRING_OVERHEAD + 2 * s.length;
  for (const d of stored.dataset.dates) bytes += STRING_OVERHEAD + 2 * d.length;
  return bytes;
}

/** Least-recently-used decoded datasets, bounded by their size in memory. */
export class DatasetCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly budgetBytes = CACHE_BYTES) {}

  /** The entry, moved to the most recently used place. */
  get(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry) {
      this.entries.delete(id);
      this.entries.set(id, entry);
    }
    return entry;
  }

  put(stored: StoredDataset, confirmedAt = performance.now()): void {
    this.forget(stored.id);
    const bytes = datasetBytes(stored);
    this.entries.set(stored.id, { stored, bytes, confirmedAt });
    this.bytes += bytes;
    for (const id of this.entries.keys()) {
      if (this.bytes <= this.budgetBytes || id === stored.id) break;
      this.forget(id);
    }
  }

  forget(id: string): void {
    const old = this.entries.get(id);
    if (!old) return;
    this.entries.delete(id);
    this.bytes -= old.bytes;
  }
}
