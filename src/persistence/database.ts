import pg from 'pg';
import { type Logger } from 'pino';
import { StorageUnavailableError } from './storage-unavailable.js';

/** One connection pool per process; every query fails within its timeout rather than hang. */
export class Database {
  readonly pool: pg.Pool;

  constructor(url: string, log: Logger, options: { queryTimeoutMs?: number; max?: number } = {}) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      connectionTimeoutMillis: 2_000,
      idleTimeoutMillis: 10_000,
      query_timeout: options.queryTimeoutMs ?? 30_000,
      statement_timeout: options.queryTimeoutMs ?? 30_000,
      application_name: 'portfolio-risk-service',
    });
    // An idle connection dropped by a server restart must not crash the process; the pool replaces it.
    this.pool.on('error', (e) => log.warn({ err: e }, 'database connection lost'));
  }

  /**
   * Runs one query. Any failure is the database being unreachable, restarting or overloaded (the
   * statements are fixed and well-formed), so it surfaces as StorageUnavailableError: 503, not 500.
   */
  async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, values);
    } catch (e) {
      throw new StorageUnavailableError('The database is unavailable.', { cause: e });
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Waits for the database to accept connections (a replica may start before it), then returns. */
export async function waitForDatabase(db: Database, waitMs: number, log: Logger): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await db.pool.query('SELECT 1');
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`database unreachable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      if (attempt === 0) log.warn({ err: e }, 'waiting for the database');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
