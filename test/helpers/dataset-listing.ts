import { call } from './http.js';

export interface ListedDataset {
  dataset_id: string;
  created_at: string;
  symbol_count: number;
  rows: number;
}

/** Follows next_cursor from the first page to the last: every page's datasets, in order. */
export async function pageThrough(bases: string[], key: string, limit: number): Promise<{ pages: ListedDataset[][]; all: ListedDataset[] }> {
  const pages: ListedDataset[][] = [];
  let cursor: string | null = null;
  do {
    const base = bases[pages.length % bases.length]!;
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await call(base, 'GET', `/api/v1/risk/datasets${query}`, { key });
    if (r.status !== 200) throw new Error(`listing ${r.status}: ${r.text}`);
    pages.push(r.body.datasets as ListedDataset[]);
    cursor = r.body.next_cursor as string | null;
    if (pages.length > 1000) throw new Error('the cursor never ends');
  } while (cursor !== null);
  return { pages, all: pages.flat() };
}

/** Newest first, ties by id descending: the order the listing promises. */
export function inListingOrder(items: ListedDataset[]): boolean {
  return items.every((d, i) => {
    const prev = items[i - 1];
    if (!prev) return true;
    const t = Date.parse(prev.created_at) - Date.parse(d.created_at);
    return t > 0 || (t === 0 && prev.dataset_id > d.dataset_id);
  });
}
