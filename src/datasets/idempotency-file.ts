import { promises as fs } from 'node:fs';
import { writeFileAtomic } from '../persistence/atomic-file.js';

/** What an Idempotency-Key stands for: the file uploaded with it and the dataset it became. */
export interface UploadRecord {
  fileSha256: string;
  datasetId: string;
  /** Epoch ms of the first upload. */
  at: number;
}

/** One key's record while its uploads are serialised. */
export interface KeySlot {
  recall(ttlMs: number): UploadRecord | null;
  remember(record: UploadRecord, ttlMs: number): Promise<void>;
}

/**
 * Idempotency keys of the file store: a map in memory, written atomically to one JSON file on every
 * change (expired keys dropped then), and each key's uploads run one after another.
 */
export class IdempotencyFile {
  private readonly records = new Map<string, UploadRecord>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Writes of the file, one after another: each writes the map as it is when its turn comes. */
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  async open(): Promise<void> {
    const text = await fs.readFile(this.file, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (text) for (const [k, r] of Object.entries(JSON.parse(text) as Record<string, UploadRecord>)) this.records.set(k, r);
  }

  /**
   * Keys are serialised one by one, but two keys can be remembered at once: concurrent atomic
   * writes could land in either order and the older map replace the newer, so writes queue here.
   */
  private persist(): Promise<void> {
    const write = this.writes.then(() => writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.records))));
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** Runs `work` for `id` after every earlier call for the same id has finished. */
  serialised<T>(id: string, work: (slot: KeySlot) => Promise<T>): Promise<T> {
    const slot: KeySlot = {
      recall: (ttlMs) => {
        const r = this.records.get(id);
        return r && Date.now() - r.at < ttlMs ? r : null;
      },
      remember: async (record, ttlMs) => {
        this.records.set(id, record);
        const now = Date.now();
        for (const [k, r] of this.records) if (now - r.at >= ttlMs) this.records.delete(k);
        await this.persist();
      },
    };
    const run = (this.queues.get(id) ?? Promise.resolve()).then(() => work(slot));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(id, settled);
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
    return run;
  }
}
