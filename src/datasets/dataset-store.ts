import { promises as fs } from 'node:fs';
import path from 'node:path';
import { newDatasetId } from '../ids.js';
import { decodeDatasetFile, encodeDatasetFile, type StoredDataset } from './dataset-file.js';
import { type Dataset } from './dataset.js';
import { removeFileDurably, sweepTempFiles, writeFileAtomic } from '../persistence/atomic-file.js';
import { DatasetCache } from './dataset-cache.js';

export const DATASET_ID_PATTERN = /^ds_[0-9A-Za-z]{16,40}$/;

/** Where datasets live: files under DATA_DIR (one node) or PostgreSQL (several replicas). */
export interface DatasetStore {
  /** Prepares the store; returns how many leftovers of a crash it removed. */
  open(): Promise<number>;
  save(owner: string, dataset: Dataset): Promise<StoredDataset>;
  /** The dataset if it exists and belongs to `owner`; otherwise null (the same for both). */
  load(id: string, owner: string): Promise<StoredDataset | null>;
  delete(id: string, owner: string): Promise<boolean>;
  /** Whether the store can take a write now (readiness). */
  writable(): Promise<boolean>;
}

/** Datasets as files under DATA_DIR/datasets, each written atomically and durably. */
export class FileDatasetStore implements DatasetStore {
  readonly dir: string;
  private readonly cache = new DatasetCache();

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
    this.cache.put(stored);
    return stored;
  }

  async load(id: string, owner: string): Promise<StoredDataset | null> {
    if (!DATASET_ID_PATTERN.test(id)) return null;
    let stored = this.cache.get(id)?.stored;
    if (!stored) {
      const buf = await fs.readFile(this.fileOf(id)).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return null;
        throw e;
      });
      if (!buf) return null;
      stored = decodeDatasetFile(buf);
      this.cache.put(stored);
    }
    return stored.owner === owner ? stored : null;
  }

  async delete(id: string, owner: string): Promise<boolean> {
    if (!(await this.load(id, owner))) return false;
    this.cache.forget(id);
    return removeFileDurably(this.fileOf(id));
  }

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
}
