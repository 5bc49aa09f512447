import t from 'tap';
import pg from 'pg';
import { calcBody, calculate, call, csvForm, upload, uploadFile } from '../helpers/http.js';
import { syntheticCsv } from '../helpers/csv.js';
import { createKeyWithCli, keysCli } from '../helpers/process.js';
import { startReplicas, waitForKey } from '../helpers/replicas.js';
import { WIDE_SAMPLE } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';
import { inListingOrder, pageThrough } from '../helpers/dataset-listing.js';
import { MIGRATIONS } from '../../src/persistence/migrations.js';

// Two service processes sharing one real Redis and one real PostgreSQL (started here on ports of
// their own), each with its own DATA_DIR: what they share, they share through those servers.
const replicas = await startReplicas(t, { count: 2, redis: true });
const [a, b] = replicas.bases as [string, string];
const cheap = (id: string) => calcBody(id, { simulations: 1_000, method_options: { seed: 7 } });

t.test('migrations ran once although both replicas started together', async (t) => {
  const client = new pg.Client({ connectionString: replicas.postgres.url });
  await client.connect();
  t.teardown(() => client.end());
  const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  t.same(
    rows.map((r) => r.version),
    MIGRATIONS.map((m) => m.version),
  );
});

t.test('the listing pages through PostgreSQL the same from either replica', async (t) => {
  const { key } = await replicas.createKey({ owner: 'listing-desk', upload: 100 });
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push((await upload(i % 2 ? a : b, key, syntheticCsv(['A', 'B'], 40 + i))).body.dataset_id as string);
  const { pages, all } = await pageThrough([a, b], key, 3);
  t.same(
    pages.map((p) => p.length),
    [3, 3, 1],
    'pages alternate between the replicas',
  );
  t.same(all.map((d) => d.dataset_id).sort(), [...ids].sort(), 'each once, no gap');
  t.ok(inListingOrder(all));
  const firstUpload = all.find((d) => d.dataset_id === ids[0]);
  t.same(firstUpload, { dataset_id: ids[0], created_at: firstUpload?.created_at, symbol_count: 2, rows: 40 });
  const other = await replicas.createKey({ owner: 'not-listing-desk' });
  t.same((await call(a, 'GET', '/api/v1/risk/datasets', { key: other.key })).body.datasets, [], 'owners see only their own');
});

t.test('ties of created_at are ordered by id in bytes, whatever the database collation', async (t) => {
  const { key } = await replicas.createKey({ owner: 'tied-desk' });
  const client = new pg.Client({ connectionString: replicas.postgres.url });
  await client.connect();
  t.teardown(() => client.end());
  // Rows written directly: one instant, ids differing only in case (bytes: "B" < "a" < "b").
  const ids = ['ds_a000000000000000', 'ds_B000000000000000', 'ds_b000000000000000'];
  for (const id of ids) {
    await client.query(
      "INSERT INTO datasets (id, owner, created_at, symbol_count, row_count, content) VALUES ($1, 'tied-desk', '2001-01-01T00:00:00Z', 1, 1, '')",
      [id],
    );
  }
  const { all } = await pageThrough([a, b], key, 1);
  t.same(
    all.map((d) => d.dataset_id),
    ['ds_b000000000000000', 'ds_a000000000000000', 'ds_B000000000000000'],
  );
});

t.test('a dataset uploaded through one replica calculates through the other', async (t) => {
  const { key } = await replicas.createKey({ calculate: 100, upload: 100 });
  const up = await uploadFile(a, key, WIDE_SAMPLE);
  t.equal(up.status, 200);
  const id = up.body.dataset_id as string;
  const seen = await call(b, 'GET', `/api/v1/risk/datasets/${id}`, { key });
  t.equal(seen.status, 200, 'the other replica finds it');
  t.same(seen.body.dataset, up.body.dataset, 'with the same summary');
  const viaB = await calculate(b, key, calcBody(id));
  const viaA = await calculate(a, key, calcBody(id));
  t.equal(viaB.status, 200);
  t.equal(viaB.body.meta.metrics.value_at_risk, viaA.body.meta.metrics.value_at_risk, 'same seed, same answer on both replicas');
  t.equal(viaB.body.meta.metrics.expected_shortfall, viaA.body.meta.metrics.expected_shortfall);

  const other = await replicas.createKey({ owner: 'another-desk' });
  t.equal((await call(b, 'GET', `/api/v1/risk/datasets/${id}`, { key: other.key })).status, 404, "another owner's dataset stays hidden");
});

t.test('Idempotency-Key across replicas: twins sent to both make one dataset; another file is refused', async (t) => {
  const { key } = await replicas.createKey({ owner: 'idempotent-desk', upload: 100 });
  const csv = syntheticCsv(['A', 'B'], 50);
  const send = (base: string, content: string) =>
    call(base, 'POST', '/api/v1/risk/datasets/upload', { key, body: csvForm(content), headers: { 'Idempotency-Key': 'twin-2026' } });
  const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => send(i % 2 ? a : b, csv)));
  t.same(
    replies.map((r) => r.status),
    Array(6).fill(200),
  );
  t.equal(new Set(replies.map((r) => r.body.dataset_id)).size, 1, 'one dataset id from both replicas');
  t.equal((await call(a, 'GET', '/api/v1/risk/datasets', { key })).body.datasets.length, 1, 'one dataset stored');
  const clash = await send(b, syntheticCsv(['A', 'B'], 51));
  t.equal(clash.status, 422);
  t.same(clash.body.detail.errors?.[0]?.loc, ['header', 'idempotency-key']);
});

t.test('a multi-megabyte upload through the shared limiter arrives whole', async (t) => {
  const { key } = await replicas.createKey({ upload: 10 });
  const symbols = Array.from({ length: 30 }, (_, i) => `S${i}`);
  const csv = syntheticCsv(symbols, 8_000);
  t.ok(csv.length > 2_000_000, `${(csv.length / 1e6).toFixed(1)} MB`);
  const up = await upload(b, key, csv);
  t.equal(up.status, 200, 'held while Redis decided, then read in full');
  t.equal(up.body.dataset?.rows, 8_000);
});

t.test("a key's calculate limit holds across both replicas (10 in total, not 20)", async (t) => {
  const { key: uploader } = await replicas.createKey({ upload: 10, calculate: 100 });
  const id = (await uploadFile(a, uploader, WIDE_SAMPLE)).body.dataset_id as string;
  const { key } = await replicas.createKey(); // the default limit: 10 per minute
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => calculate(i % 2 ? a : b, key, cheap(id))));
  const statuses = replies.map((r) => r.status);
  t.equal(statuses.filter((s) => s === 200).length, 10, 'exactly 10 admitted');
  t.equal(statuses.filter((s) => s === 429).length, 10, 'the other 10 refused');
  const refused = replies.find((r) => r.status === 429)!;
  t.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After on a refusal');
  t.match(refused.headers.get('ratelimit'), /^"calculate";r=0;t=\d+$/);
});

t.test('a deleted dataset disappears from every replica within a second', async (t) => {
  const { key } = await replicas.createKey({ calculate: 100, upload: 10 });
  const id = (await uploadFile(a, key, WIDE_SAMPLE)).body.dataset_id as string;
  const warm = await calculate(b, key, cheap(id));
  t.equal(warm.status, 200, 'replica B has it cached');
  t.equal((await call(a, 'DELETE', `/api/v1/risk/datasets/${id}`, { key })).status, 200);
  const before: number[] = [];
  const gone = await waitFor(async () => {
    const r = await call(b, 'GET', `/api/v1/risk/datasets/${id}`, { key }); // from B's cache until it rechecks
    if (r.status === 404) return r.status;
    before.push(r.status);
    return undefined;
  }, 'replica B to see the delete');
  t.ok(
    before.every((s) => s === 200),
    'until then it still answers',
  );
  t.comment(`deleted dataset gone from replica B after ${gone.ms.toFixed(0)} ms (DATASET_RECHECK_MS 250)`);
  t.equal((await calculate(b, key, cheap(id))).status, 404, 'and calculating on it is refused');
});

t.test('a key printed by the CLI works at once on every replica', async (t) => {
  const created = createKeyWithCli(replicas.env, ['--name', 'provisioned', '--owner', 'desk']);
  const statuses = await Promise.all(replicas.bases.map((b) => call(b, 'GET', '/api/v1/risk/datasets/ds_0000000000000000000000', { key: created.key })));
  t.same(
    statuses.map((r) => r.status),
    [404, 404],
    'the very next request on each replica is authenticated (404: no such dataset, not 401)',
  );
});

t.test('a key revoked through the CLI fails on both replicas after their next reload', async (t) => {
  const created = await replicas.createKey({ calculate: 100 });
  const listed = keysCli(replicas.env, ['list', '--json']).stdout;
  t.match(listed, created.id, 'the CLI lists keys from PostgreSQL');
  t.notMatch(listed, created.key, 'but never a key itself');
  const revoked = keysCli(replicas.env, ['revoke', created.id]);
  t.equal(revoked.code, 0, revoked.stdout);
  const ms = await waitForKey(replicas.bases, created.key, false, 20_000);
  t.comment(`revoked key refused by both replicas after ${ms.toFixed(0)} ms (KEY_RELOAD_MS 500)`);
  t.equal(keysCli(replicas.env, ['revoke', created.id]).code, 1, 'revoking twice reports no active key');
});

t.test('PostgreSQL holds keyed hashes only, never a key', async (t) => {
  const { key } = await replicas.createKey();
  const client = new pg.Client({ connectionString: replicas.postgres.url });
  await client.connect();
  t.teardown(() => client.end());
  const { rows } = await client.query('SELECT * FROM api_keys');
  t.ok(rows.length > 0);
  t.notMatch(JSON.stringify(rows), key.slice(9), 'no part of the secret part of a key is stored');
});
