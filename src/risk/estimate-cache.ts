import { type Estimation } from '../engine/codec.js';

/** Estimates per (dataset, symbols, options), most recently used kept; failures are not kept. */
export class EstimateCache {
  private readonly entries = new Map<string, Promise<Estimation>>();

  constructor(private readonly capacity = 256) {}

  get(key: string, compute: () => Promise<Estimation>): Promise<Estimation> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const pending = compute();
    this.entries.set(key, pending);
    pending.catch(() => this.entries.delete(key));
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return pending;
  }

  /** Drops every estimate of a dataset (it was deleted). */
  forgetDataset(datasetId: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(`${datasetId}|`)) this.entries.delete(key);
  }
}
