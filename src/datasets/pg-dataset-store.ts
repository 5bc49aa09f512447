import { decodeDatasetFile, encodeDatasetFile, type DatasetListing, type StoredDataset } from './dataset-file.js';
import { type Dataset } from './dataset.js';
import { DatasetCache } from './dataset-cache.js';
import { SharedProbe } from './shared-probe.js';
import { checkQuota, type Quota, type Usage } from './quota.js';
import { newDatasetId } from '../ids.js';
import { DATASET_ID_PATTERN, type DatasetStore, type IdempotentUpload, type ListPosition, type SaveOnce } from './dataset-store.js';
import { type Database } from '../persistence/database.js';

/**
 * Datasets in PostgreSQL: metadata columns plus the checksummed encoding in a bytea, so any replica
 * loads any dataset. Each replica caches decoded datasets; a cached one is used without asking the
 * database again for `recheckMs`, after which its row is looked up (by primary key, no bytea) before
 * use, so a dataset deleted through any replica is gone from all of them within that time.
 */
export class PgDatasetStore implements DatasetStore {
  private readonly cache = new DatasetCache();
  private readonly probe = new SharedProbe(() => this.probeQuery());

  constructor(
    private readonly db: Database,
    private readonly recheckMs: number,
  ) {}

  async open(): Promise<number> {
    return 0; // a row is written in one statement: a crash leaves nothing half-written
  }

  async save(owner: string, dataset: Dataset, quota?: Quota): Promise<StoredDataset> {
    const stored: StoredDataset = { id: newDatasetId(), owner, createdAt: new Date().toISOString(), dataset };
    const content = encodeDatasetFile(stored);
    // Replicas checking at the same moment may each pass: the quota can be overshot by one upload per replica.
    if (quota) checkQuota(await this.usage(owner), content.length, quota);
    await this.db.query('INSERT INTO datasets (id, owner, created_at, symbol_count, row_count, content) VALUES ($1, $2, $3, $4, $5, $6)', [
      stored.id,
      owner,
      stored.createdAt,
      dataset.symbols.length,
      dataset.dates.length,
      content,
    ]);
    this.cache.put(stored);
    return stored;
  }

  async load(id: string, owner: string): Promise<StoredDataset | null> {
    if (!DATASET_ID_PATTERN.test(id)) return null;
    const cached = this.cache.get(id);
    if (cached) {
      if (performance.now() - cached.confirmedAt > this.recheckMs) {
        const checkedAt = performance.now();
        const { rowCount } = await this.db.query('SELECT 1 FROM datasets WHERE id = $1', [id]);
        if (rowCount === 0) {
          this.cache.forget(id);
          return null;
        }
        cached.confirmedAt = checkedAt;
      }
      return cached.stored.owner === owner ? cached.stored : null;
    }
    const loadedAt = performance.now();
    // The owner in the query: another owner's dataset is never read or decoded, so it answers as an unknown id (review L5).
    const { rows } = await this.db.query<{ content: Buffer }>('SELECT content FROM datasets WHERE id = $1 AND owner = $2', [id, owner]);
    if (rows.length === 0) return null;
    const stored = decodeDatasetFile(rows[0]!.content);
    this.cache.put(stored, loadedAt);
    return stored.owner === owner ? stored : null;
  }

  async delete(id: string, owner: string): Promise<boolean> {
    if (!DATASET_ID_PATTERN.test(id)) return false;
    const { rowCount } = await this.db.query('DELETE FROM datasets WHERE id = $1 AND owner = $2', [id, owner]);
    if (rowCount === 1) this.cache.forget(id);
    return rowCount === 1;
  }

  /**
   * Replicas race through the database: the first to insert the key's row wins; a loser removes the
   * dataset it stored and answers the winner's (or a conflict, for a different file).
   */
  async saveOnce(owner: string, dataset: Dataset, upload: IdempotentUpload, quota?: Quota): Promise<SaveOnce> {
    const seen = await this.recall(owner, upload);
    if (seen) {
      if (seen.fingerprint !== upload.fileSha256) return { kind: 'conflict' };
      const earlier = await this.load(seen.dataset_id, owner);
      if (earlier) return { kind: 'replayed', stored: earlier };
      // Its dataset was deleted: forget that row only (a twin may already have written the next).
      await this.db.query('DELETE FROM upload_idempotency WHERE owner = $1 AND key = $2 AND dataset_id = $3', [owner, upload.key, seen.dataset_id]);
    }
    const stored = await this.save(owner, dataset, quota);
    const { rowCount } = await this.db.query(
      `INSERT INTO upload_idempotency (owner, key, fingerprint, dataset_id, created_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (owner, key) DO NOTHING`,
      [owner, upload.key, upload.fileSha256, stored.id],
    );
    if (rowCount === 1) return { kind: 'stored', stored };
    await this.delete(stored.id, owner);
    const winner = await this.recall(owner, upload);
    const theirs = winner && winner.fingerprint === upload.fileSha256 ? await this.load(winner.dataset_id, owner) : null;
    return theirs ? { kind: 'replayed', stored: theirs } : { kind: 'conflict' };
  }

  /** The key's row within its time to live (older rows are removed first). */
  private async recall(owner: string, upload: IdempotentUpload): Promise<{ fingerprint: string; dataset_id: string } | null> {
    await this.db.query("DELETE FROM upload_idempotency WHERE created_at < now() - $1 * interval '1 millisecond'", [upload.ttlMs]);
    const { rows } = await this.db.query<{ fingerprint: string; dataset_id: string }>(
      'SELECT fingerprint, dataset_id FROM upload_idempotency WHERE owner = $1 AND key = $2',
      [owner, upload.key],
    );
    return rows[0] ?? null;
  }

  async list(owner: string, limit: number, after: ListPosition | null): Promise<DatasetListing[]> {
    const { rows } = await this.db.query<{ id: string; created_at: Date; symbol_count: number; row_count: number }>(
      `SELECT id, created_at, symbol_count, row_count FROM datasets
       WHERE owner = $1 AND ($2::timestamptz IS NULL OR (created_at, id COLLATE "C") < ($2::timestamptz, $3::text))
       ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $4`,
      [owner, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map((r) => ({ id: r.id, owner, createdAt: r.created_at.toISOString(), symbolCount: r.symbol_count, rows: r.row_count }));
  }

  /** octet_length of a bytea reads its stored size, not its content. */
  private async usage(owner: string): Promise<Usage> {
    const { rows } = await this.db.query<{ count: string; bytes: string }>(
      'SELECT count(*) AS count, coalesce(sum(octet_length(content)), 0) AS bytes FROM datasets WHERE owner = $1',
      [owner],
    );
    return { count: Number(rows[0]!.count), bytes: Number(rows[0]!.bytes) };
  }

  async usageByOwner(): Promise<Map<string, Usage>> {
    const { rows } = await this.db.query<{ owner: string; count: string; bytes: string }>(
      'SELECT owner, count(*) AS count, coalesce(sum(octet_length(content)), 0) AS bytes FROM datasets GROUP BY owner',
    );
    return new Map(rows.map((r) => [r.owner, { count: Number(r.count), bytes: Number(r.bytes) }]));
  }

  writable(): Promise<boolean> {
    return this.probe.run();
  }

  private async probeQuery(): Promise<boolean> {
    try {
      await this.db.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }
}
