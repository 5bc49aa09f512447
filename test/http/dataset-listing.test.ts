// GET /api/v1/risk/datasets: the owner's datasets, newest first, a page at a time by cursor;
// stable while uploads arrive; other owners' never shown; every bad limit or cursor a clear 422.
import t from 'tap';
import { call, upload } from '../helpers/http.js';
import { syntheticCsv } from '../helpers/csv.js';
import { inListingOrder, pageThrough } from '../helpers/dataset-listing.js';
import { startTestService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const s = await startTestService();
t.teardown(() => s.stop());
const csv = (i: number) => syntheticCsv(['A', 'B', 'C'].slice(0, 1 + (i % 3)), 40 + i);
const list = (query: string, key = s.key) => call(s.base, 'GET', `/api/v1/risk/datasets${query}`, { key });

t.test('an owner with no datasets gets an empty last page', async (t) => {
  const { key } = await s.newKey({ owner: 'empty-desk' });
  t.same((await list('', key)).body, { status: 'success', datasets: [], next_cursor: null });
});

t.test('25 uploads in pages of 10: 3 pages, newest first, each once, with what each holds', async (t) => {
  const { key } = await s.newKey({ owner: 'paging-desk', upload: 1000 });
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) ids.push((await upload(s.base, key, csv(i))).body.dataset_id as string);
  const { pages, all } = await pageThrough([s.base], key, 10);
  t.same(
    pages.map((p) => p.length),
    [10, 10, 5],
  );
  // Uploads one after another get ascending created_at; two in one millisecond are ordered by id.
  t.same(all.map((d) => d.dataset_id).sort(), [...ids].sort(), 'each once, no gap');
  t.same(
    all.map((d) => d.created_at),
    [...all.map((d) => d.created_at)].sort().reverse(),
    'newest first',
  );
  t.ok(inListingOrder(all), 'ordered by created_at, then id');
  const firstUpload = all.find((d) => d.dataset_id === ids[0]);
  t.same(firstUpload, { dataset_id: ids[0], created_at: firstUpload?.created_at, symbol_count: 1, rows: 40 }, 'symbol count and rows of each');
  t.equal((await list('?limit=25', key)).body.next_cursor, null, 'a page holding the rest is the last');
  t.same((await list('', key)).body.datasets.length, 20, 'default limit 20');
});

t.test('uploads and deletions between pages shift nothing already paged', async (t) => {
  const { key } = await s.newKey({ owner: 'busy-desk', upload: 1000 });
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push((await upload(s.base, key, csv(i))).body.dataset_id as string);
  const first = await list('?limit=3', key);
  const newer = (await upload(s.base, key, csv(9))).body.dataset_id as string;
  const second = await list(`?limit=3&cursor=${first.body.next_cursor}`, key);
  const paged = [...first.body.datasets, ...second.body.datasets].map((d: { dataset_id: string }) => d.dataset_id);
  t.same([...paged].sort(), [...ids].sort(), 'the newer upload pushes no dataset onto the next page twice, and skips none');
  t.equal(second.body.next_cursor, null);
  t.equal((await list('?limit=1', key)).body.datasets[0].dataset_id, newer, 'and heads the next listing');
  await call(s.base, 'DELETE', `/api/v1/risk/datasets/${ids[5]}`, { key });
  const after = (await pageThrough([s.base], key, 2)).all.map((d) => d.dataset_id);
  t.notOk(after.includes(ids[5]!), 'a deleted dataset is gone');
  t.equal(after.length, 6);
});

t.test('another owner’s datasets are never listed; every key of an owner sees the same list', async (t) => {
  const mine = await s.newKey({ owner: 'desk-x', upload: 100 });
  const colleague = await s.newKey({ owner: 'desk-x' });
  const other = await s.newKey({ owner: 'desk-y' });
  const id = (await upload(s.base, mine.key, csv(1))).body.dataset_id;
  t.same(
    (await list('', colleague.key)).body.datasets.map((d: { dataset_id: string }) => d.dataset_id),
    [id],
  );
  t.same((await list('', other.key)).body.datasets, []);
  // A cursor names a place in a listing, not a right: another owner's cursor lists only your own.
  const theirs = (await upload(s.base, other.key, csv(2))).body.dataset_id as string;
  const theirsAt = Date.parse((await list('', other.key)).body.datasets[0].created_at);
  await waitFor(() => (Date.now() > theirsAt ? true : undefined), 'the clock to pass the other owner’s upload');
  const newer = (await upload(s.base, mine.key, csv(3))).body.dataset_id as string;
  const page = await list('?limit=1', mine.key);
  t.same(
    page.body.datasets.map((d: { dataset_id: string }) => d.dataset_id),
    [newer],
  );
  const withTheirCursor = await list(`?cursor=${page.body.next_cursor}`, other.key);
  t.equal(withTheirCursor.status, 200);
  t.same(
    withTheirCursor.body.datasets.map((d: { dataset_id: string }) => d.dataset_id),
    [theirs],
    'the other owner gets its own datasets older than that place, never the cursor owner’s',
  );
});

t.test('bad limits, cursors and parameters: 422 at ["query", name]; no key: 401', async (t) => {
  const refused = async (query: string, name: string, type = 'value_error') => {
    const r = await list(query);
    t.equal(r.status, 422, `${query}: 422`);
    t.same(
      r.body.detail.errors?.map((e: { loc: unknown }) => e.loc),
      [['query', name]],
      `${query}: at ${name}`,
    );
    t.equal(r.body.detail.errors?.[0]?.type, type);
  };
  for (const limit of ['0', '101', '-1', 'x', '1.5', '2147483648', '4294967296', '9007199254740991', '', '1e2']) await refused(`?limit=${limit}`, 'limit');
  for (const limit of ['1', '100']) t.equal((await list(`?limit=${limit}`)).status, 200, `limit ${limit}`);
  const garbage = [
    'x',
    'W10',
    Buffer.from('["not a date","ds_0123456789abcdef"]').toString('base64url'),
    Buffer.from('["2026-01-01T00:00:00.000Z","nope"]').toString('base64url'),
    'A'.repeat(201),
    // Dates JavaScript would parse but the stores never give (PostgreSQL refuses "1").
    Buffer.from('["1","ds_0123456789abcdef"]').toString('base64url'),
    Buffer.from('["2026-02-30T00:00:00.000Z","ds_0123456789abcdef"]').toString('base64url'),
    Buffer.from('["2026-01-01T00:00:00Z","ds_0123456789abcdef"]').toString('base64url'),
    Buffer.from('["2026-01-01T00:00:00.000Z","ds_0123456789abcdef","x"]').toString('base64url'),
    Buffer.from('{"0":"2026-01-01T00:00:00.000Z","1":"ds_0123456789abcdef"}').toString('base64url'),
  ];
  for (const cursor of garbage) await refused(`?cursor=${cursor}`, 'cursor');
  await refused('?page=2', 'page', 'extra_forbidden');
  await refused('?limit=5&limit=6', 'limit');
  const wellFormed = Buffer.from('["2000-01-01T00:00:00.000Z","ds_0123456789abcdef"]').toString('base64url');
  t.same((await list(`?cursor=${wellFormed}`)).body.datasets, [], 'a well-formed cursor naming no dataset is a place all the same');
  t.equal((await call(s.base, 'GET', '/api/v1/risk/datasets')).status, 401);
});
