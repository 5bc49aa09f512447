import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBase62 } from '../auth/key-format.js';
import { decodeDatasetFile, encodeDatasetFile, type StoredDataset } from '../dataset/dataset-file.js';
import { type Dataset } from '../dataset/dataset.js';
import { removeFileDurably, sweepTempFiles, writeFileAtomic } from './atomic-file.js';

const ID_PATTERN = /^ds_[0-9A-Za-z]{16,40}$/;
/** Decoded datasets kept in memory, by total price bytes. */
const CACHE_BYTES = 512 * 1024 * 1024;

export function newDatasetId(): string {
  return 'ds_' + randomBase62(22);
}

/** Datasets as files under DATA_DIR/datasets, each written atomically and durably. */
export class FileDatasetStore {
  readonly dir: string;
  private readonly cache = new Map<string, StoredDataset>();
  private cachedBytes = 0;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'datasets');
  }

  /** Creates the directory and removes what a crash left half-written. */
  async open(): Promise<number> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    return sweepTempFiles(this.dir);
  }

  private fileOf(id: string): string {
    return path.join(this.dir, `${id}.ds`);
  }

  async save(owner: string, dataset: Dataset): Promise<StoredDataset> {
    const stored: StoredDataset = { id: newDatasetId(), owner, createdAt: new Date().toISOString(), dataset };
    await writeFileAtomic(this.fileOf(stored.id), encodeDatasetFile(stored));
    this.remember(stored);
    return stored;
  }

  /** The dataset if it exists and belongs to `owner`; otherwise null (the same for both). */
  async load(id: string, owner: string): Promise<StoredDataset | null> {
    if (!ID_PATTERN.test(id)) return null;
    let stored = this.cache.get(id);
    if (!stored) {
      const buf = await fs.readFile(this.fileOf(id)).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return null;
        throw e;
      });
      if (!buf) return null;
      stored = decodeDatasetFile(buf);
      this.remember(stored);
    } else {
      // Refresh the entry's place in the LRU order.
      this.cache.delete(id);
      this.cache.set(id, stored);
    }
    return stored.owner === owner ? stored : null;
  }

  async delete(id: string, owner: string): Promise<boolean> {
    if (!(await this.load(id, owner))) return false;
    this.forget(id);
    return removeFileDurably(this.fileOf(id));
  }

  /** Whether the store can take a write now (readiness). */
  async writable(): Promise<boolean> {
    const probe = path.join(this.dir, `.probe-${process.pid}`);
    try {
      await fs.writeFile(probe, 'ok');
      await fs.rm(probe);
      return true;
    } catch {
      return false;
    }
  }

  private remember(stored: StoredDataset): void {
    this.forget(stored.id);
    this.cache.set(stored.id, stored);
    this.cachedBytes += stored.dataset.prices.byteLength;
    for (const [id, s] of this.cache) {
      if (this.cachedBytes <= CACHE_BYTES || id === stored.id) break;
      this.forget(id);
      void s;
    }
  }

  private forget(id: string): void {
    const old = this.cache.get(id);
    if (!old) return;
    this.cache.delete(id);
    this.cachedBytes -= old.dataset.prices.byteLength;
  }
}
