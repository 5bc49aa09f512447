import { type StoredDataset } from './dataset-file.js';

/** Decoded datasets kept in memory, by total price bytes. */
const CACHE_BYTES = 512 * 1024 * 1024;

interface Entry {
  stored: StoredDataset;
  /** When the store last confirmed the dataset still exists (performance.now() ms). */
  confirmedAt: number;
}

/** Least-recently-used decoded datasets, bounded by their price bytes. */
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
    this.entries.set(stored.id, { stored, confirmedAt });
    this.bytes += stored.dataset.prices.byteLength;
    for (const id of this.entries.keys()) {
      if (this.bytes <= this.budgetBytes || id === stored.id) break;
      this.forget(id);
    }
  }

  forget(id: string): void {
    const old = this.entries.get(id);
    if (!old) return;
    this.entries.delete(id);
    this.bytes -= old.stored.dataset.prices.byteLength;
  }
}
