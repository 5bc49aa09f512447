// Review L2: every /api/v1 answer, success or error, tells caches not to store it and browsers not
// to guess its type (X-API-Key is not Authorization, so RFC 9111 alone would let a shared cache keep it).
import t, { type Test } from 'tap';
import { calcBody, call, upload, type Reply } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { syntheticCsv } from '../helpers/csv.js';

function checkHeaders(t: Test, what: string, reply: Reply, status: number): void {
  t.equal(reply.status, status, `${what}: ${status}`);
  t.equal(reply.headers.get('cache-control'), 'no-store', `${what}: Cache-Control: no-store`);
  t.equal(reply.headers.get('x-content-type-options'), 'nosniff', `${what}: X-Content-Type-Options: nosniff`);
}

t.test('successes and errors of /api/v1', async (t) => {
  const s = await startTestService({ AUTH_FAILURES_PER_MIN: '2' });
  t.teardown(() => s.stop());
  const { key } = await s.newKey({ calculate: 1 });
  const csv = syntheticCsv(['A', 'B'], 80);
  const up = await upload(s.base, key, csv);
  checkHeaders(t, 'upload', up, 200);
  const ds = up.body.dataset_id as string;
  const body = calcBody(ds, {
    portfolio: [
      { symbol: 'A', weight: 0.5 },
      { symbol: 'B', weight: 0.5 },
    ],
    simulations: 1000,
  });
  checkHeaders(t, 'calculate', await call(s.base, 'POST', '/api/v1/risk/calculate', { key, json: body }), 200);
  checkHeaders(t, 'calculate over the limit', await call(s.base, 'POST', '/api/v1/risk/calculate', { key, json: body }), 429);
  checkHeaders(t, 'dataset', await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`, { key }), 200);
  checkHeaders(t, 'dataset list', await call(s.base, 'GET', '/api/v1/risk/datasets', { key }), 200);
  checkHeaders(t, 'OpenAPI document', await call(s.base, 'GET', '/api/v1/openapi.json'), 200);
  checkHeaders(t, 'unknown dataset', await call(s.base, 'GET', '/api/v1/risk/datasets/ds_0000000000000000', { key }), 404);
  checkHeaders(t, 'unknown route', await call(s.base, 'GET', '/api/v1/nothing', { key }), 404);
  checkHeaders(t, 'wrong method', await call(s.base, 'PUT', '/api/v1/risk/calculate', { key }), 405);
  checkHeaders(
    t,
    'malformed JSON',
    await call(s.base, 'POST', '/api/v1/risk/stress', { key, body: '{', headers: { 'Content-Type': 'application/json' } }),
    400,
  );
  checkHeaders(t, 'invalid request', await call(s.base, 'POST', '/api/v1/risk/stress', { key: s.key, json: { nope: 1 } }), 422);
  checkHeaders(t, 'no key', await call(s.base, 'GET', '/api/v1/risk/datasets'), 401);
  checkHeaders(t, 'bad key', await call(s.base, 'GET', '/api/v1/risk/datasets', { key: 'bad' }), 401);
  checkHeaders(t, 'failure gate', await call(s.base, 'GET', '/api/v1/risk/datasets', { key: 'bad' }), 429);
});

t.test('503 answers too', async (t) => {
  // A deadline of 1 ms: every calculation answers 503 CALCULATION_TIMEOUT.
  const s = await startTestService({ CALC_TIMEOUT_MS: '1' });
  t.teardown(() => s.stop());
  const csv = syntheticCsv(['A', 'B'], 80);
  const ds = (await upload(s.base, s.key, csv)).body.dataset_id as string;
  const body = calcBody(ds, {
    portfolio: [
      { symbol: 'A', weight: 0.5 },
      { symbol: 'B', weight: 0.5 },
    ],
    simulations: 1_000_000,
  });
  checkHeaders(t, 'calculation past its deadline', await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, json: body }), 503);
});
