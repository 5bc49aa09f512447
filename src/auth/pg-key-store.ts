import { type Database } from '../persistence/database.js';
import { newKeyRecord, type KeyRecord, type KeyStore, type NewKey } from './key-store.js';

interface KeyRow {
  id: string;
  name: string;
  owner: string;
  hash: string;
  created_at: Date;
  revoked_at: Date | null;
  upload_limit: number | null;
  calculate_limit: number | null;
}

function toRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    hash: row.hash,
    created_at: row.created_at.toISOString(),
    revoked: row.revoked_at !== null,
    ...(row.revoked_at ? { revoked_at: row.revoked_at.toISOString() } : {}),
    ...(row.upload_limit !== null ? { upload_limit: row.upload_limit } : {}),
    ...(row.calculate_limit !== null ? { calculate_limit: row.calculate_limit } : {}),
  };
}

/** Keys (keyed hashes only) and owners in PostgreSQL, shared by every replica and the CLI. */
export class PgKeyStore implements KeyStore {
  constructor(
    private readonly db: Database,
    private readonly secret: Buffer,
  ) {}

  async list(): Promise<KeyRecord[]> {
    const { rows } = await this.db.query<KeyRow>(
      'SELECT id, name, owner, hash, created_at, revoked_at, upload_limit, calculate_limit FROM api_keys ORDER BY created_at, id',
    );
    return rows.map(toRecord);
  }

  async create(input: NewKey): Promise<{ record: KeyRecord; key: string }> {
    const created = newKeyRecord(this.secret, input);
    const r = created.record;
    await this.db.query('INSERT INTO api_keys (id, name, owner, hash, created_at, upload_limit, calculate_limit) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      r.id,
      r.name,
      r.owner,
      r.hash,
      r.created_at,
      r.upload_limit ?? null,
      r.calculate_limit ?? null,
    ]);
    return created;
  }

  async revoke(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      "UPDATE api_keys SET revoked_at = now(), revision = nextval('api_key_revision') WHERE id = $1 AND revoked_at IS NULL",
      [id],
    );
    return rowCount === 1;
  }

  async stamp(): Promise<string> {
    const { rows } = await this.db.query<{ stamp: string }>("SELECT count(*) || ':' || coalesce(max(revision), 0) AS stamp FROM api_keys");
    return rows[0]!.stamp;
  }
}
