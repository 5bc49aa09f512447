// Uploads over HTTP: the shared samples, and every kind of broken file, each refused with its
// reason and nothing stored.
import t from 'tap';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { call, csvForm, upload } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

t.test('uploads', async (t) => {
  const s = await startTestService({ MAX_UPLOAD_BYTES: '200000' });
  t.teardown(() => s.stop());
  const stored = () => readdirSync(path.join(s.config.dataDir, 'datasets')).filter((f) => f.endsWith('.ds')).length;

  const cases: [string, string | Buffer, string, number?, number?][] = [
    ['zero price', 'date,A\n2020-01-01,1\n2020-01-02,0\n', 'INVALID_PRICE', 3, 2],
    ['negative price', 'date,A\n2020-01-01,-1\n2020-01-02,1\n', 'INVALID_PRICE', 2, 2],
    ['text price', 'date,A,B\n2020-01-01,1,abc\n2020-01-02,1,2\n', 'INVALID_PRICE', 2, 3],
    ['Infinity', 'date,A\n2020-01-01,Infinity\n2020-01-02,1\n', 'INVALID_PRICE', 2, 2],
    ['duplicate date', 'date,A\n2020-01-01,1\n2020-01-02,1\n2020-01-01,2\n', 'DUPLICATE_DATE', 4, 1],
    ['header only', 'date,A,B\n', 'TOO_FEW_DATES'],
    ['empty', '', 'EMPTY_FILE'],
    ['binary', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]), 'INVALID_ENCODING'],
    ['NUL bytes', 'date,A\n2020-01-01,1\u0000\n', 'BINARY_CONTENT'],
    ['gzip named .csv', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]), 'INVALID_ENCODING'],
    ['unterminated quote', 'date,A\n2020-01-01,"1\n2020-01-02,2\n', 'MALFORMED_CSV'],
  ];
  for (const [label, content, reason, line, column] of cases) {
    const r = await upload(s.base, s.key, content);
    t.equal(r.status, 422, `${label}: 422`);
    t.equal(r.body.detail.code, 'INVALID_CSV', `${label}: INVALID_CSV`);
    t.equal(r.body.detail.reason, reason, `${label}: ${reason} (${r.body.detail.message})`);
    if (line !== undefined) t.equal(r.body.detail.line, line, `${label}: line`);
    if (column !== undefined) t.equal(r.body.detail.column, column, `${label}: column`);
  }
  const oversize = await upload(s.base, s.key, 'date,A\n' + '2020-01-01,1\n'.repeat(20_000));
  t.equal(oversize.status, 413, 'oversize: 413');
  const wrongPart = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm('date,A\n2020-01-01,1\n2020-01-02,2\n', 'upload') });
  t.equal(wrongPart.body.detail.code, 'MISSING_FILE', 'wrong part name');
  t.equal(stored(), 0, 'nothing stored by any failed upload');

  const pathy = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', {
    key: s.key,
    body: csvForm('date,A\n2020-01-01,1\n2020-01-02,2\n', 'file', '../../etc/passwd'),
  });
  t.equal(pathy.status, 200, 'a path-like file name is accepted but never used');
  t.equal(stored(), 1);
  t.match(readdirSync(path.join(s.config.dataDir, 'datasets')), [/^ds_[0-9A-Za-z]+\.ds$/]);
  const id = pathy.body.dataset_id as string;
  t.equal((await call(s.base, 'DELETE', `/api/v1/risk/datasets/${id}`, { key: s.key })).status, 200, 'delete');
  t.equal((await call(s.base, 'GET', `/api/v1/risk/datasets/${id}`, { key: s.key })).status, 404, 'gone after delete');
  t.equal(stored(), 0, 'its file removed');
});

t.test('bodies arriving before the guard decides are held, then replayed or dropped', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  // Several MB: far beyond what is held before the socket is paused (256 KiB).
  const big = 'date,A\n' + Array.from({ length: 300_000 }, (_, i) => `2000-01-01,${i + 1}`).join('\n');
  const refused = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: 'prk_live_' + 'Z'.repeat(32), body: csvForm(big) });
  t.equal(refused.status, 401, 'refused before its body was read');
  const slow = await Promise.all(Array.from({ length: 4 }, () => call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm(big) })));
  t.same(
    slow.map((r) => r.status),
    [422, 422, 422, 422],
    'read in full after the guard admitted it (duplicate dates: a reasoned 422, not a lost body)',
  );
  t.match(slow[0]!.body.detail.message, /date|duplicate/i);
  const ok = await call(s.base, 'GET', '/healthz');
  t.equal(ok.status, 200, 'the server is fine afterwards');
});
