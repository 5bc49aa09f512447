// Every row of the contract's status/error table, against the real server.
import t from 'tap';
import { waitFor } from '../helpers/wait.js';
import { calcBody, calculate, call, csvForm, type Reply, upload, uploadFile, withoutRequestId } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { syntheticCsv } from '../helpers/csv.js';
import { rawExchange } from '../helpers/raw-socket.js';
import { portfolio } from '../helpers/portfolio.js';

const MAX_UPLOAD = 300_000;

t.test('error contract', async (t) => {
  const s = await startTestService({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD), MAX_SIMULATIONS: '2000000' });
  t.teardown(() => s.stop());
  const up = await uploadFile(s.base, s.key, WIDE_SAMPLE);
  t.equal(up.status, 200, 'upload 200');
  const ds = up.body.dataset_id as string;

  const expectError = (t: Tap, r: Reply, status: number, code: string) => {
    t.equal(r.status, status, `${code}: status ${status}`);
    t.equal(r.body?.detail?.code, code, `${code}: code`);
    t.type(r.body?.detail?.message, 'string', `${code}: message`);
    t.match(r.headers.get('content-type') ?? '', /^application\/json/, `${code}: JSON`);
    t.notMatch(JSON.stringify(r.body), /at .*\.js|\/work\/|node_modules/, `${code}: no stack or path`);
  };
  type Tap = typeof t;

  t.test('200 on both endpoints', async (t) => {
    const r = await calculate(s.base, s.key, calcBody(ds));
    t.equal(r.status, 200);
    t.equal(r.body.status, 'success');
    t.match(r.body.meta.calculation_id, /^calc_/);
  });

  t.test('400', async (t) => {
    expectError(
      t,
      await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, body: '{"a":', headers: { 'Content-Type': 'application/json' } }),
      400,
      'MALFORMED_JSON',
    );
    for (const bad of ['{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '{"a":{"__proto__":1}}']) {
      expectError(
        t,
        await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, body: bad, headers: { 'Content-Type': 'application/json' } }),
        400,
        'MALFORMED_JSON',
      );
    }
    t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype pollution');
    const noClose = '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ndate,A\n2020-01-01,1\n';
    expectError(
      t,
      await call(s.base, 'POST', '/api/v1/risk/datasets/upload', {
        key: s.key,
        body: noClose,
        headers: { 'Content-Type': 'multipart/form-data; boundary=XYZ' },
      }),
      400,
      'MALFORMED_MULTIPART',
    );
    expectError(
      t,
      await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: 'x', headers: { 'Content-Type': 'multipart/form-data' } }),
      400,
      'MALFORMED_MULTIPART',
    );
  });

  t.test('401', async (t) => {
    expectError(t, await calculate(s.base, '', calcBody(ds)).then((r) => r), 401, 'API_KEY_INVALID');
    expectError(t, await call(s.base, 'POST', '/api/v1/risk/calculate', { json: calcBody(ds) }), 401, 'API_KEY_MISSING');
    const unknown = await calculate(s.base, 'prk_live_' + 'A'.repeat(32), calcBody(ds));
    const malformed = await calculate(s.base, 'hello', calcBody(ds));
    expectError(t, unknown, 401, 'API_KEY_INVALID');
    t.same(withoutRequestId(malformed.body), withoutRequestId(unknown.body), 'one body for every invalid key');
    const { id, key } = await s.newKey();
    await s.keys.revoke(id);
    const revoked = await waitFor(async () => {
      const r = await calculate(s.base, key, calcBody(ds));
      return r.status === 401 ? r : undefined;
    }, 'the revoked key to be refused');
    expectError(t, revoked.value, 401, 'API_KEY_INVALID');
    expectError(t, await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`), 401, 'API_KEY_MISSING');
  });

  t.test('404', async (t) => {
    expectError(t, await call(s.base, 'GET', '/nope'), 404, 'NOT_FOUND');
    expectError(t, await calculate(s.base, s.key, calcBody('ds_doesnotexist000000000')), 404, 'DATASET_NOT_FOUND');
    const other = await s.newKey({ owner: 'mallory' });
    const theirs = await calculate(s.base, other.key, calcBody(ds));
    const missing = await calculate(s.base, other.key, calcBody('ds_doesnotexist000000000'));
    expectError(t, theirs, 404, 'DATASET_NOT_FOUND');
    t.same(theirs.body.detail.code, missing.body.detail.code, 'another owner sees the same as for a missing dataset');
    expectError(t, await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`, { key: other.key }), 404, 'DATASET_NOT_FOUND');
    expectError(t, await call(s.base, 'DELETE', `/api/v1/risk/datasets/${ds}`, { key: other.key }), 404, 'DATASET_NOT_FOUND');
    const mine = await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`, { key: s.key });
    t.equal(mine.status, 200, 'the owner still has it');
    const sameOwner = await s.newKey({ owner: 'alice' });
    t.equal((await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`, { key: sameOwner.key })).status, 200, 'every key of the owner sees it');
  });

  t.test('405 with Allow', async (t) => {
    const r = await call(s.base, 'GET', '/api/v1/risk/calculate', { key: s.key });
    expectError(t, r, 405, 'METHOD_NOT_ALLOWED');
    t.equal(r.headers.get('allow'), 'POST');
    t.equal((await call(s.base, 'PUT', `/api/v1/risk/datasets/${ds}`)).headers.get('allow'), 'GET, DELETE');
  });

  t.test('the live route as plain HTTP: 426 with Upgrade, 405 for other methods', async (t) => {
    for (const key of [s.key, undefined]) {
      const r = await call(s.base, 'GET', '/api/v1/risk/live', key ? { key } : {});
      expectError(t, r, 426, 'UPGRADE_REQUIRED');
      t.equal(r.headers.get('upgrade'), 'websocket', 'names the protocol to upgrade to');
    }
    // The status line as sent: its reason phrase too (a status without one in the server's table
    // went out as "HTTP/1.1 426" with no space after the code, which strict parsers refuse).
    const raw = await rawExchange(Number(new URL(s.base).port), 'GET /api/v1/risk/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    t.match(raw, /^HTTP\/1\.1 426 Upgrade Required\r\n/, 'the status line has its reason phrase');
    const post = await call(s.base, 'POST', '/api/v1/risk/live', { key: s.key });
    expectError(t, post, 405, 'METHOD_NOT_ALLOWED');
    t.equal(post.headers.get('allow'), 'GET');
  });

  t.test('413', async (t) => {
    const big = '{"x":"' + 'a'.repeat(1024 * 1024) + '"}';
    expectError(
      t,
      await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, body: big, headers: { 'Content-Type': 'application/json' } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    // A valid CSV of exactly MAX_UPLOAD_BYTES passes; one byte more does not.
    const base = syntheticCsv(['A', 'B'], 40);
    const exact = base.replace(/\n$/, '') + ' '.repeat(MAX_UPLOAD - base.length) + '\n';
    t.equal(Buffer.byteLength(exact), MAX_UPLOAD + 0 + 0 || MAX_UPLOAD, 'fixture size');
    const ok = await upload(s.base, s.key, exact.slice(0, MAX_UPLOAD));
    t.equal(ok.status, 200, `exactly the limit is accepted: ${ok.text}`);
    expectError(t, await upload(s.base, s.key, exact.slice(0, MAX_UPLOAD) + 'x'), 413, 'PAYLOAD_TOO_LARGE');
    const form = csvForm(syntheticCsv(['A'], 40));
    for (let i = 0; i < 9; i++) form.append(`f${i}`, 'v'); // 10 parts in all
    expectError(t, await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: form }), 413, 'PAYLOAD_TOO_LARGE');
  });

  t.test('415', async (t) => {
    expectError(
      t,
      await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, body: JSON.stringify(calcBody(ds)), headers: { 'Content-Type': 'text/plain' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(
      t,
      await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, json: calcBody(ds), headers: { 'Content-Encoding': 'gzip' } }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(t, await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, json: {} }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  t.test('422', async (t) => {
    const unknownField = await calculate(s.base, s.key, { ...calcBody(ds), simulatoins: 5 });
    expectError(t, unknownField, 422, 'VALIDATION_ERROR');
    t.same(unknownField.body.detail.errors[0].loc, ['body', 'simulatoins'], 'typo named in loc');
    const badType = await calculate(s.base, s.key, calcBody(ds, { portfolio: [{ symbol: 'AAPL', weight: 'x' }] }));
    expectError(t, badType, 422, 'VALIDATION_ERROR');
    t.same(badType.body.detail.errors[0].loc, ['body', 'portfolio', 0, 'weight']);
    expectError(t, await calculate(s.base, s.key, calcBody(ds, { method_options: { seed: 1, sed: 2 } })), 422, 'VALIDATION_ERROR');
    expectError(t, await calculate(s.base, s.key, calcBody(ds, { currency: 'XYZ' })), 422, 'VALIDATION_ERROR');
    expectError(t, await calculate(s.base, s.key, calcBody(ds, { simulations: undefined })), 422, 'VALIDATION_ERROR');
    expectError(t, await calculate(s.base, s.key, calcBody(ds, { confidence_level: 1 })), 422, 'VALIDATION_ERROR');
    const w = await calculate(s.base, s.key, calcBody(ds, { portfolio: portfolio({ AAPL: 0.5, MSFT: 0.4 }) }));
    expectError(t, w, 422, 'WEIGHTS_DO_NOT_SUM_TO_ONE');
    const sym = await calculate(s.base, s.key, calcBody(ds, { portfolio: portfolio({ AAPL: 0.5, NOPE: 0.5 }) }));
    expectError(t, sym, 422, 'UNKNOWN_SYMBOL');
    t.same(sym.body.detail.symbols, ['NOPE'], 'names the unknown symbols');
    const short = await upload(s.base, s.key, syntheticCsv(['A', 'B'], 20));
    const few = await calculate(s.base, s.key, calcBody(short.body.dataset_id, { portfolio: [{ symbol: 'A', weight: 1 }] }));
    expectError(t, few, 422, 'INSUFFICIENT_DATA');
    t.equal(few.body.detail.observations, 19, `19 returns from 20 dates: ${few.text}`);
    const sixty = await upload(s.base, s.key, syntheticCsv(['A', 'B'], 60));
    const windows = await calculate(
      s.base,
      s.key,
      calcBody(sixty.body.dataset_id, { method: 'historical', time_horizon: 100, portfolio: [{ symbol: 'A', weight: 1 }] }),
    );
    expectError(t, windows, 422, 'INSUFFICIENT_DATA');
    t.match(windows.body.detail.message, /time_horizon/, 'historical: horizon longer than the history');
    expectError(t, await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: csvForm('date,A\n', 'data') }), 422, 'MISSING_FILE');
    const bad = await upload(s.base, s.key, 'date,A\n2020-01-01,1\n2020-01-02,-1\n');
    expectError(t, bad, 422, 'INVALID_CSV');
    t.match(bad.body.detail, { reason: 'INVALID_PRICE', line: 3, column: 2 });
  });

  t.test('health, readiness, metrics, OpenAPI need no key', async (t) => {
    t.same((await call(s.base, 'GET', '/healthz')).body, { status: 'ok' });
    const ready = await call(s.base, 'GET', '/readyz');
    t.equal(ready.status, 200);
    const metrics = await call(s.base, 'GET', '/metrics');
    t.match(metrics.text, /http_requests_total\{route="\/api\/v1\/risk\/calculate",method="POST",status="200"\}/);
    t.match(metrics.text, /engine_pool_queue_depth/);
    t.notMatch(metrics.text, /prk_live_/, 'no key in metrics');
    const spec = await call(s.base, 'GET', '/api/v1/openapi.json');
    t.equal(spec.body.openapi, '3.1.0');
    t.equal(spec.body.components.schemas.CalculateRequest.additionalProperties, false);
    t.equal(spec.body.components.schemas.CalculateRequest.properties.simulations.maximum, 2_000_000, 'built from the configured schema');
  });
});
