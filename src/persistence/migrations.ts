import { type Database } from './database.js';

/**
 * The schema, as numbered migrations applied in order at start-up, each once. Never edit a
 * migration that has shipped: add the next number.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'api keys',
    sql: `
      CREATE SEQUENCE api_key_revision;
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        name text NOT NULL,
        owner text NOT NULL,
        hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        upload_limit integer CHECK (upload_limit > 0),
        calculate_limit integer CHECK (calculate_limit > 0),
        -- Bumped on every change, so replicas poll max(revision) instead of every row.
        revision bigint NOT NULL DEFAULT nextval('api_key_revision')
      );`,
  },
  {
    version: 2,
    name: 'datasets',
    sql: `
      CREATE TABLE datasets (
        id text PRIMARY KEY,
        owner text NOT NULL,
        created_at timestamptz NOT NULL,
        symbol_count integer NOT NULL,
        row_count integer NOT NULL,
        -- The same checksummed encoding as a dataset file; prices compress poorly, so store uncompressed.
        content bytea NOT NULL
      );
      ALTER TABLE datasets ALTER COLUMN content SET STORAGE EXTERNAL;
      CREATE INDEX datasets_owner ON datasets (owner);`,
  },
  {
    version: 3,
    name: 'datasets listed newest first',
    sql: `CREATE INDEX datasets_owner_newest ON datasets (owner, created_at DESC, id DESC);`,
  },
  {
    version: 4,
    name: 'upload idempotency keys',
    sql: `
      CREATE TABLE upload_idempotency (
        owner text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        dataset_id text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (owner, key)
      );
      CREATE INDEX upload_idempotency_created ON upload_idempotency (created_at);`,
  },
  {
    version: 5,
    name: 'datasets listed in byte order of ids',
    // Ties of created_at are ordered by id in bytes ("C"), as the file store orders them, whatever
    // the database's collation (which would otherwise interleave upper- and lower-case ids).
    sql: `
      CREATE INDEX datasets_owner_newest_c ON datasets (owner, created_at DESC, (id COLLATE "C") DESC);
      DROP INDEX datasets_owner_newest;`,
  },
];

/** Any constant both the service and the CLI agree on: the advisory lock serialising migrators. */
const MIGRATION_LOCK = 72_610_001;

/** Applies the migrations not yet applied, one transaction each; replicas starting together queue on a lock. */
export async function migrate(db: Database): Promise<number[]> {
  const client = await db.pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.version} (${m.name}) failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      applied.push(m.version);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}
