import { validationError } from '../../contract/errors.js';
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../../contract/dataset-list-schemas.js';
import { DATASET_ID_PATTERN, type ListPosition } from '../../datasets/dataset-store.js';
import { type Handler } from '../context.js';
import { admit } from '../limited-route.js';

const invalid = (name: string, msg: string, type = 'value_error') => validationError([{ loc: ['query', name], msg, type }]);

/** A cursor names the last dataset of a page: base64url of [created_at, id]. */
export const encodeCursor = (p: ListPosition) => Buffer.from(JSON.stringify([p.createdAt, p.id])).toString('base64url');

/**
 * Exactly the form the stores give created_at (toISOString, years 1000–9999): a looser date that
 * JavaScript parses (e.g. "1") could still be one PostgreSQL refuses, which must not be a 5xx.
 */
function isStoredInstant(s: string): boolean {
  const t = /^[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(s) ? Date.parse(s) : NaN;
  return !Number.isNaN(t) && new Date(t).toISOString() === s;
}

function decodeCursor(cursor: string): ListPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const [createdAt, id] = Array.isArray(parsed) && parsed.length === 2 ? parsed : [];
  const valid = typeof createdAt === 'string' && isStoredInstant(createdAt) && typeof id === 'string' && DATASET_ID_PATTERN.test(id);
  if (!valid || cursor.length > 200) throw invalid('cursor', 'not a cursor this service gave: pass a page’s next_cursor unchanged');
  return { createdAt, id };
}

/** `limit` and `cursor` from the query string; anything else is refused. */
function parseQuery(query: string): { limit: number; after: ListPosition | null } {
  const params = new URLSearchParams(query);
  for (const name of params.keys()) {
    if (name !== 'limit' && name !== 'cursor') throw invalid(name, 'unknown query parameter', 'extra_forbidden');
    if (params.getAll(name).length > 1) throw invalid(name, 'given more than once');
  }
  const raw = params.get('limit');
  const limit = raw === null ? LIST_DEFAULT_LIMIT : /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= LIST_MAX_LIMIT)) throw invalid('limit', `an integer from 1 to ${LIST_MAX_LIMIT}`);
  const cursor = params.get('cursor');
  return { limit, after: cursor === null ? null : decodeCursor(cursor) };
}

/** GET /api/v1/risk/datasets: the caller's owner's datasets, newest first, a page at a time. */
export const listDatasetsRoute: Handler = async (ctx, ex) => {
  const { key } = await admit(ctx, ex, null);
  const { limit, after } = parseQuery(ex.head.query);
  const page = await ctx.datasets.list(key.owner, limit + 1, after);
  const shown = page.slice(0, limit);
  const last = shown[shown.length - 1];
  ex.json(200, {
    status: 'success',
    datasets: shown.map((d) => ({ dataset_id: d.id, created_at: d.createdAt, symbol_count: d.symbolCount, rows: d.rows })),
    next_cursor: page.length > limit && last ? encodeCursor(last) : null,
  });
};
