// Idempotency-Key on upload: a retried upload stores one dataset and answers the same one; a key
// reused with another file is refused; keys are per owner; concurrent twins make one dataset.
import t from 'tap';
import net from 'node:net';
import { call, csvForm, type Reply } from '../helpers/http.js';
import { syntheticCsv } from '../helpers/csv.js';
import { Readable } from 'node:stream';
import { IDEMPOTENCY_KEY_TTL_MS } from '../../src/contract/dataset-schemas.js';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { type Dataset } from '../../src/datasets/dataset.js';
import { FileDatasetStore } from '../../src/datasets/dataset-store.js';
import { startTestService, tempDir } from '../helpers/service.js';

const s = await startTestService();
t.teardown(() => s.stop());
const csv = syntheticCsv(['A', 'B'], 60);
const other = syntheticCsv(['A', 'B'], 61);
const put = (key: string, content: string, idempotencyKey?: string): Promise<Reply> =>
  call(s.base, 'POST', '/api/v1/risk/datasets/upload', {
    key,
    body: csvForm(content),
    ...(idempotencyKey !== undefined ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}),
  });
const listed = async (key: string) => ((await call(s.base, 'GET', '/api/v1/risk/datasets?limit=100', { key })).body.datasets as unknown[]).length;

t.test('the same key and file: the same answer, one dataset', async (t) => {
  const { key } = await s.newKey({ owner: 'retry-desk', upload: 100 });
  const first = await put(key, csv, 'upload-2026-11-22-001');
  const again = await put(key, csv, 'upload-2026-11-22-001');
  t.equal(first.status, 200);
  t.equal(again.status, 200);
  t.equal(again.body.dataset_id, first.body.dataset_id, 'the same dataset id');
  t.same(again.body, first.body, 'the same body');
  t.equal(await listed(key), 1, 'one dataset stored');
  t.not((await put(key, csv)).body.dataset_id, first.body.dataset_id, 'without a key, every upload is new');
  t.equal(await listed(key), 2);
});

t.test('the same key with another file is refused; another owner’s same key is its own', async (t) => {
  const { key } = await s.newKey({ owner: 'conflict-desk', upload: 100 });
  const first = await put(key, csv, 'k1');
  const clash = await put(key, other, 'k1');
  t.equal(clash.status, 422);
  t.same(clash.body.detail.errors, [
    { loc: ['header', 'idempotency-key'], msg: 'already used with a different file in the last 24 hours: use a new key', type: 'value_error' },
  ]);
  t.equal(await listed(key), 1, 'nothing stored for the refused one');
  const { key: theirs } = await s.newKey({ owner: 'another-desk', upload: 100 });
  const mine = await put(theirs, other, 'k1');
  t.equal(mine.status, 200, 'keys are per owner');
  t.not(mine.body.dataset_id, first.body.dataset_id);
});

t.test('a deleted dataset is not resurrected: the key then stores the file anew', async (t) => {
  const { key } = await s.newKey({ owner: 'delete-desk', upload: 100 });
  const first = await put(key, csv, 'k-del');
  await call(s.base, 'DELETE', `/api/v1/risk/datasets/${first.body.dataset_id}`, { key });
  const again = await put(key, csv, 'k-del');
  t.equal(again.status, 200);
  t.not(again.body.dataset_id, first.body.dataset_id);
  t.equal((await put(key, csv, 'k-del')).body.dataset_id, again.body.dataset_id, 'and answers that one from then on');
});

t.test('concurrent twins make one dataset', async (t) => {
  const { key } = await s.newKey({ owner: 'twin-desk', upload: 100 });
  const replies = await Promise.all(Array.from({ length: 6 }, () => put(key, csv, 'twin')));
  t.same(
    replies.map((r) => r.status),
    Array(6).fill(200),
  );
  t.equal(new Set(replies.map((r) => r.body.dataset_id)).size, 1, 'one id');
  t.equal(await listed(key), 1, 'one dataset');
});

t.test('key syntax: 1 to 255 printable ASCII characters, else 422 before the body is read', async (t) => {
  const { key } = await s.newKey({ owner: 'syntax-desk', upload: 100 });
  t.equal((await put(key, csv, 'x'.repeat(255))).status, 200, '255 characters');
  t.equal((await put(key, csv, ' ~!"')).status, 200, 'printable punctuation');
  for (const bad of ['', 'x'.repeat(256)]) {
    const r = await put(key, csv, bad);
    t.equal(r.status, 422, `${bad.length} characters`);
    t.same(r.body.detail.errors?.[0]?.loc, ['header', 'idempotency-key']);
  }
});

t.test('remembered across a restart: the file store reads its keys back', async (t) => {
  const dir = tempDir();
  const dataset = (await readCsv(Readable.from([Buffer.from(csv)]), { maxSymbols: 10 })) as Dataset;
  const upload = { key: 'restart', fileSha256: 'f'.repeat(64), ttlMs: IDEMPOTENCY_KEY_TTL_MS };
  const before = new FileDatasetStore(dir);
  await before.open();
  const first = await before.saveOnce('alice', dataset, upload);
  const after = new FileDatasetStore(dir);
  await after.open();
  const again = await after.saveOnce('alice', dataset, upload);
  t.equal(first.kind, 'stored');
  t.equal(again.kind, 'replayed', 'a new store on the same directory knows the key');
  t.equal(again.kind !== 'conflict' && again.stored.id, first.kind !== 'conflict' && first.stored.id, 'the same dataset');
  t.equal((await after.saveOnce('alice', dataset, { ...upload, fileSha256: 'e'.repeat(64) })).kind, 'conflict');
  t.equal((await after.saveOnce('alice', dataset, { ...upload, ttlMs: 0 })).kind, 'stored', 'an expired key is forgotten');
});

t.test('many keys remembered at once are all known after a restart', async (t) => {
  const dir = tempDir();
  const dataset = await readCsv(Readable.from([Buffer.from(csv)]), { maxSymbols: 10 });
  const upload = (i: number) => ({ key: `k${i}`, fileSha256: 'a'.repeat(64), ttlMs: IDEMPOTENCY_KEY_TTL_MS });
  const before = new FileDatasetStore(dir);
  await before.open();
  const first = await Promise.all(Array.from({ length: 12 }, (_, i) => before.saveOnce('alice', dataset, upload(i))));
  const after = new FileDatasetStore(dir);
  await after.open();
  const again = await Promise.all(Array.from({ length: 12 }, (_, i) => after.saveOnce('alice', dataset, upload(i))));
  t.same(
    again.map((r) => r.kind),
    Array(12).fill('replayed'),
    'every key read back',
  );
  t.same(
    again.map((r) => r.kind !== 'conflict' && r.stored.id),
    first.map((r) => r.kind !== 'conflict' && r.stored.id),
  );
});

t.test('a repeated Idempotency-Key is refused, not resolved to one of its values', async (t) => {
  const { key } = await s.newKey({ owner: 'twice-desk', upload: 100 });
  // Two header lines need a raw request: fetch joins repeats into one value.
  const form = new Request('http://x/', { method: 'POST', body: csvForm(csv) });
  const body = Buffer.from(await form.arrayBuffer());
  const raw = (lines: string[]) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(s.service.port, '127.0.0.1');
      let text = '';
      socket.on('data', (c) => (text += c.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
      const head = [
        'POST /api/v1/risk/datasets/upload HTTP/1.1',
        'Host: x',
        `X-API-Key: ${key}`,
        `Content-Type: ${form.headers.get('content-type')}`,
        `Content-Length: ${body.length}`,
        'Connection: close',
        ...lines,
      ];
      socket.write(Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n\r\n'), body]));
    });
  for (const values of [
    ['a', 'b'],
    ['same', 'same'],
  ]) {
    const text = await raw(values.map((v) => `Idempotency-Key: ${v}`));
    t.match(text, /^HTTP\/1\.1 422 /, `${values.join(' and ')}: 422`);
    const detail = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).detail;
    t.same(detail.errors[0].loc, ['header', 'idempotency-key'], 'at the header');
    t.match(detail.errors[0].msg, /sent 2 times/);
  }
  t.match(await raw(['Idempotency-Key: once']), /^HTTP\/1\.1 200 /, 'sent once: stored');
  t.equal(await listed(key), 1, 'the refused ones stored nothing');
});
