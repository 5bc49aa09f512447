import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { newDatasetId } from '../ids.js';
import {
  decodeDatasetFile,
  decodeDatasetListing,
  encodeDatasetFileInTurns,
  HEADER_PREFIX,
  headerLength,
  type DatasetListing,
  type StoredDataset,
} from './dataset-file.js';
import { type Dataset } from './dataset.js';
import { removeFileDurably, sweepTempFiles, TEMP_PREFIX, writeFileAtomic } from '../persistence/atomic-file.js';
import { DatasetCache } from './dataset-cache.js';
import { IdempotencyFile } from './idempotency-file.js';
import { SharedProbe } from './shared-probe.js';
import { checkQuota, type Quota, type Usage } from './quota.js';

export const DATASET_ID_PATTERN = /^ds_[0-9A-Za-z]{16,40}$/;

/** An upload with an Idempotency-Key: the owner's key, the file's SHA-256, how long a key is remembered. */
export interface IdempotentUpload {
  key: string;
  fileSha256: string;
  ttlMs: number;
}

/** What an idempotent save did: stored a new dataset, replayed the one stored for the key, or refused a different file. */
export type SaveOnce = { kind: 'stored' | 'replayed'; stored: StoredDataset } | { kind: 'conflict' };

/** A place in a listing: the last dataset a page showed. */
export interface ListPosition {
  createdAt: string;
  id: string;
}

/** Newest first; ties of created_at broken by id, so every dataset has one place. */
export function newerFirst(a: { createdAt: string; id: string }, b: { createdAt: string; id: string }): number {
  const t = Date.parse(b.createdAt) - Date.parse(a.createdAt);
  return t !== 0 ? t : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Where datasets live: files under DATA_DIR (one node) or PostgreSQL (several replicas). */
export interface DatasetStore {
  /** Prepares the store; returns how many leftovers of a crash it removed. */
  open(): Promise<number>;
  /** Stores the dataset; with a quota, throws QuotaExceeded (storing nothing) when it would take the owner over it. */
  save(owner: string, dataset: Dataset, quota?: Quota): Promise<StoredDataset>;
  /**
   * Saves at most once per owner and key within its time to live: the same file again gets the
   * dataset stored the first time (if not deleted since), a different file a conflict.
   */
  saveOnce(owner: string, dataset: Dataset, upload: IdempotentUpload, quota?: Quota): Promise<SaveOnce>;
  /** The dataset if it exists and belongs to `owner`; otherwise null (the same for both). */
  load(id: string, owner: string): Promise<StoredDataset | null>;
  delete(id: string, owner: string): Promise<boolean>;
  /** `owner`'s datasets, newest first (created_at, then id, descending), strictly after `after` in that order. */
  list(owner: string, limit: number, after: ListPosition | null): Promise<DatasetListing[]>;
  /** Whether the store can take a write now (readiness). */
  writable(): Promise<boolean>;
  /** Datasets and stored bytes of every owner that has any (for /metrics). */
  usageByOwner(): Promise<Map<string, Usage>>;
}

/** Datasets as files under DATA_DIR/datasets, each written atomically and durably. */
export class FileDatasetStore implements DatasetStore {
  readonly dir: string;
  private readonly cache = new DatasetCache();
  /** Every dataset's listing, read from the file headers at open and kept as datasets come and go. */
  private readonly listings = new Map<string, DatasetListing>();
  /** Idempotency keys (owner NUL key → the upload), persisted beside the datasets. */
  private readonly uploads: IdempotencyFile;
  private readonly probe = new SharedProbe(() => this.probeWrite());
  /** Each dataset's file size, for the owners' quotas. */
  private readonly sizes = new Map<string, number>();
  /** Writes under way, per owner: counted against the quota so concurrent uploads cannot overshoot it. */
  private readonly pending = new Map<string, Usage>();

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'datasets');
    this.uploads = new IdempotencyFile(path.join(this.dir, 'idempotency-keys.json'));
  }

  /** Creates the directory and removes what a crash left half-written. */
  async open(): Promise<number> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const swept = await sweepTempFiles(this.dir);
    await this.uploads.open();
    for (const name of await fs.readdir(this.dir)) {
      if (!name.endsWith('.ds')) continue;
      const file = path.join(this.dir, name);
      const listing = await readListing(file).catch(() => null); // a corrupt file fails when loaded, not here
      if (!listing) continue;
      this.listings.set(listing.id, listing);
      this.sizes.set(listing.id, (await fs.stat(file)).size);
    }
    return swept;
  }

  async list(owner: string, limit: number, after: ListPosition | null): Promise<DatasetListing[]> {
    const mine = [...this.listings.values()].filter((l) => l.owner === owner && (!after || newerFirst(after, l) < 0));
    return mine.sort(newerFirst).slice(0, limit);
  }

  private fileOf(id: string): string {
    return path.join(this.dir, `${id}.ds`);
  }

  async save(owner: string, dataset: Dataset, quota?: Quota): Promise<StoredDataset> {
    const stored: StoredDataset = { id: newDatasetId(), owner, createdAt: new Date().toISOString(), dataset };
    const bytes = await encodeDatasetFileInTurns(stored);
    // Checked and reserved in one turn of the event loop: no other upload can slip in between.
    checkQuota(this.usage(owner), bytes.length, quota);
    const pending = this.pending.get(owner) ?? { count: 0, bytes: 0 };
    this.pending.set(owner, { count: pending.count + 1, bytes: pending.bytes + bytes.length });
    try {
      await writeFileAtomic(this.fileOf(stored.id), bytes);
    } finally {
      const now = this.pending.get(owner)!;
      if (now.count === 1) this.pending.delete(owner);
      else this.pending.set(owner, { count: now.count - 1, bytes: now.bytes - bytes.length });
    }
    this.cache.put(stored);
    this.listings.set(stored.id, { id: stored.id, owner, createdAt: stored.createdAt, symbolCount: dataset.symbols.length, rows: dataset.dates.length });
    this.sizes.set(stored.id, bytes.length);
    return stored;
  }

  /** The owner's stored datasets and bytes, with the writes under way. */
  private usage(owner: string): Usage {
    const usage = { ...(this.pending.get(owner) ?? { count: 0, bytes: 0 }) };
    for (const l of this.listings.values()) {
      if (l.owner !== owner) continue;
      usage.count++;
      usage.bytes += this.sizes.get(l.id) ?? 0;
    }
    return usage;
  }

  async usageByOwner(): Promise<Map<string, Usage>> {
    const byOwner = new Map<string, Usage>();
    for (const l of this.listings.values()) {
      const u = byOwner.get(l.owner) ?? { count: 0, bytes: 0 };
      byOwner.set(l.owner, { count: u.count + 1, bytes: u.bytes + (this.sizes.get(l.id) ?? 0) });
    }
    return byOwner;
  }

  saveOnce(owner: string, dataset: Dataset, upload: IdempotentUpload, quota?: Quota): Promise<SaveOnce> {
    // One node serves this store: serialising each owner's key here makes concurrent twins one upload.
    return this.uploads.serialised(`${owner}\u0000${upload.key}`, async (slot) => {
      const seen = slot.recall(upload.ttlMs);
      if (seen && seen.fileSha256 !== upload.fileSha256) return { kind: 'conflict' };
      const earlier = seen ? await this.load(seen.datasetId, owner) : null;
      if (earlier) return { kind: 'replayed', stored: earlier };
      const stored = await this.save(owner, dataset, quota);
      await slot.remember({ fileSha256: upload.fileSha256, datasetId: stored.id, at: Date.now() }, upload.ttlMs);
      return { kind: 'stored', stored };
    });
  }

  async load(id: string, owner: string): Promise<StoredDataset | null> {
    if (!DATASET_ID_PATTERN.test(id)) return null;
    // The owner from the listing first: another owner's file is never read or decoded, so even a
    // corrupt one answers as an unknown id (review L5). A file whose header was unreadable at start
    // has no listing and is read (and fails) as before.
    const listing = this.listings.get(id);
    if (listing && listing.owner !== owner) return null;
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
    this.listings.delete(id);
    this.sizes.delete(id);
    return removeFileDurably(this.fileOf(id));
  }

  writable(): Promise<boolean> {
    return this.probe.run();
  }

  /** A write and removal of a file of its own: a name shared by concurrent probes let them delete each other's (review M3). */
  private async probeWrite(): Promise<boolean> {
    // The temp prefix: a probe left by a crash is swept at the next start.
    const probe = path.join(this.dir, `${TEMP_PREFIX}probe-${randomBytes(8).toString('hex')}`);
    try {
      await fs.writeFile(probe, 'ok');
      await fs.rm(probe);
      return true;
    } catch {
      return false;
    }
  }
}

/** The listing of a dataset file, from its header only. */
async function readListing(file: string): Promise<DatasetListing> {
  const handle = await fs.open(file, 'r');
  try {
    const prefix = Buffer.alloc(HEADER_PREFIX);
    await handle.read(prefix, 0, HEADER_PREFIX, 0);
    const head = Buffer.alloc(HEADER_PREFIX + headerLength(prefix));
    await handle.read(head, 0, head.length, 0);
    return decodeDatasetListing(head);
  } finally {
    await handle.close();
  }
}
