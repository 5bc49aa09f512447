// Request ids (X-Request-Id taken when sane, or from traceparent, or made), echoed on every answer
// and in every error body; one access-log line per answer, errors included, never with the key;
// the metrics that count what goes wrong.
import t from 'tap';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { calcBody, call, uploadFile } from '../helpers/http.js';
import { firstKey, spawnService } from '../helpers/process.js';
import { tempDir, testEnv, WIDE_SAMPLE } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const svc = await spawnService(testEnv(tempDir(), { RATE_LIMIT_STRESS_PER_MIN: '1', RATE_LIMIT_UPLOAD_PER_MIN: '100' }), t);
const base = `http://127.0.0.1:${svc.port}`;
const key = firstKey(svc)!;
const ds = (await uploadFile(base, key, WIDE_SAMPLE)).body.dataset_id as string;

const MADE = /^req_[0-9A-Za-z]{20}$/;
const accessLines = () =>
  svc
    .stdout()
    .split('\n')
    .filter((l) => l.includes('"msg":"request"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

t.test('a sane X-Request-Id is echoed; an insane or missing one is replaced by a new id', async (t) => {
  const sane = 'desk-7:order.42_A';
  t.equal((await call(base, 'GET', '/healthz', { headers: { 'X-Request-Id': sane } })).headers.get('x-request-id'), sane);
  const longest = 'a'.repeat(128);
  t.equal((await call(base, 'GET', '/healthz', { headers: { 'X-Request-Id': longest } })).headers.get('x-request-id'), longest, '128 characters');
  for (const insane of ['a'.repeat(129), 'has space', 'semi;colon', 'é', '']) {
    const r = await call(base, 'GET', '/healthz', { headers: { 'X-Request-Id': insane } });
    t.match(r.headers.get('x-request-id'), MADE, `${JSON.stringify(insane.slice(0, 20))} replaced`);
  }
  const a = (await call(base, 'GET', '/healthz')).headers.get('x-request-id');
  const b = (await call(base, 'GET', '/healthz')).headers.get('x-request-id');
  t.match(a, MADE);
  t.not(a, b, 'each request its own');
});

t.test('traceparent: its trace id names the request when no X-Request-Id is sent', async (t) => {
  const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const tp = `00-${trace}-00f067aa0ba902b7-01`;
  t.equal((await call(base, 'GET', '/healthz', { headers: { traceparent: tp } })).headers.get('x-request-id'), trace);
  t.equal(
    (await call(base, 'GET', '/healthz', { headers: { traceparent: tp, 'X-Request-Id': 'mine' } })).headers.get('x-request-id'),
    'mine',
    'X-Request-Id first',
  );
  for (const bad of ['00-00000000000000000000000000000000-00f067aa0ba902b7-01', 'garbage', `00-${trace.toUpperCase()}-00f067aa0ba902b7-01`]) {
    t.match((await call(base, 'GET', '/healthz', { headers: { traceparent: bad } })).headers.get('x-request-id'), MADE, `${bad.slice(0, 12)}… ignored`);
  }
});

t.test('every error body carries the request id of its header', async (t) => {
  const cases: [string, string, Parameters<typeof call>[3], number][] = [
    ['POST', '/api/v1/risk/calculate', { json: calcBody(ds) }, 401],
    ['GET', '/api/v1/risk/nothing-here', { key }, 404],
    ['PUT', '/api/v1/risk/calculate', { key }, 405],
    ['POST', '/api/v1/risk/calculate', { key, json: calcBody(ds, { confidence_level: 2 }) }, 422],
    ['POST', '/api/v1/risk/calculate', { key, body: '{"broken', headers: { 'Content-Type': 'application/json' } }, 400],
    ['GET', '/api/v1/risk/datasets/ds_missing0000000000000', { key }, 404],
  ];
  for (const [method, path, opts, status] of cases) {
    for (const sent of [undefined, 'trace-me-1']) {
      const r = await call(base, method, path, { ...opts, headers: { ...(opts?.headers ?? {}), ...(sent ? { 'X-Request-Id': sent } : {}) } });
      t.equal(r.status, status, `${method} ${path} → ${status}`);
      t.equal(r.body.detail.request_id, r.headers.get('x-request-id'), `${status}: body and header agree`);
      if (sent) t.equal(r.body.detail.request_id, sent);
    }
  }
  const stress = {
    dataset_id: ds,
    currency: 'USD',
    portfolio_value: 1,
    portfolio: [{ symbol: 'AAPL', weight: 1 }],
    scenarios: [{ type: 'shock', shocks: { AAPL: -0.1 } }],
  };
  await call(base, 'POST', '/api/v1/risk/stress', { key, json: stress });
  const limited = await call(base, 'POST', '/api/v1/risk/stress', { key, json: stress, headers: { 'X-Request-Id': 'log-429' } });
  t.equal(limited.status, 429);
  t.equal(limited.body.detail.request_id, 'log-429', '429 too');
  const { value: line } = await waitFor(() => accessLines().find((l) => l.request_id === 'log-429'), 'the 429 access-log line');
  t.match(line, { method: 'POST', route: '/api/v1/risk/stress', status: 429, key_id: /^key_/, aborted: false }, 'and its access-log line');
});

t.test('no uWebSockets version header on any answer', async (t) => {
  for (const [method, path, status] of [
    ['GET', '/healthz', 200],
    ['GET', '/api/v1/risk/nothing-here', 404],
    ['POST', '/api/v1/risk/calculate', 401],
  ] as const) {
    const r = await call(base, method, path);
    t.equal(r.status, status);
    t.equal(r.headers.get('uwebsockets'), null, `${status}: no uWebSockets header`);
    t.ok(r.headers.get('x-request-id'), `${status}: the service's own headers are still written`);
  }
});

t.test('the access-log line counts the body bytes received and sent', async (t) => {
  const boundary = 'request-ids-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="prices.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    readFileSync(WIDE_SAMPLE),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const r = await call(base, 'POST', '/api/v1/risk/datasets/upload', {
    key,
    body,
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'X-Request-Id': 'log-upload' },
  });
  t.equal(r.status, 200);
  const { value: line } = await waitFor(() => accessLines().find((l) => l.request_id === 'log-upload'), 'the upload access-log line');
  t.match(line, { route: '/api/v1/risk/datasets/upload', status: 200, bytes_in: body.byteLength, bytes_out: Buffer.byteLength(r.text) });
});

t.test('a client that leaves before its answer: one access-log line, status 499, aborted', async (t) => {
  // Headers and part of a declared body, then the connection closes: the upload can never finish.
  const socket = net.connect(svc.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    'POST /api/v1/risk/datasets/upload HTTP/1.1\r\nHost: x\r\nX-Request-Id: log-aborted\r\n' +
      `X-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n` +
      '--b\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\n\r\nDate,AAPL\n',
  );
  socket.destroy();
  const { value: lines } = await waitFor(() => {
    const found = accessLines().filter((l) => l.request_id === 'log-aborted');
    return found.length > 0 ? found : undefined;
  }, "the aborted request's access-log line");
  t.match(lines[0], { method: 'POST', route: '/api/v1/risk/datasets/upload', status: 499, aborted: true, bytes_out: 0 });
  const m = (await call(base, 'GET', '/metrics')).text;
  t.match(m, /^http_requests_total\{route="\/api\/v1\/risk\/datasets\/upload",method="POST",status="499"\} 1$/m, 'counted as 499, not as a server error');
  t.equal(accessLines().filter((l) => l.request_id === 'log-aborted').length, 1, 'exactly one line');
});

t.test('one access-log line per answer, errors included, with the id, route template, status, time and key id — never the key', async (t) => {
  const before = accessLines().length;
  const ids = ['log-ok', 'log-401', 'log-404', 'log-405', 'log-422'];
  await call(base, 'POST', '/api/v1/risk/calculate', { key, json: calcBody(ds), headers: { 'X-Request-Id': ids[0]! } });
  await call(base, 'POST', '/api/v1/risk/calculate', { key: 'prk_live_' + 'Z'.repeat(32), json: calcBody(ds), headers: { 'X-Request-Id': ids[1]! } });
  await call(base, 'GET', `/api/v1/risk/datasets/${'x'.repeat(30)}`, { key, headers: { 'X-Request-Id': ids[2]! } });
  await call(base, 'DELETE', '/api/v1/risk/calculate', { key, headers: { 'X-Request-Id': ids[3]! } });
  await call(base, 'POST', '/api/v1/risk/calculate', { key, json: calcBody(ds, { time_horizon: 0 }), headers: { 'X-Request-Id': ids[4]! } });
  const { value: lines } = await waitFor(() => {
    const found = accessLines().filter((l) => ids.includes(l.request_id as string));
    return found.length === ids.length ? found : undefined;
  }, 'the five access-log lines');
  t.ok(accessLines().length - before >= ids.length, 'a line for each');
  const by = Object.fromEntries(lines.map((l) => [l.request_id, l]));
  t.match(by['log-ok'], { method: 'POST', route: '/api/v1/risk/calculate', status: 200, key_id: /^key_/ });
  t.match(by['log-401'], { status: 401, key_id: null });
  t.match(by['log-404'], { status: 404, route: '/api/v1/risk/datasets/:id', key_id: /^key_/ });
  t.match(by['log-405'], { status: 405, route: '/api/v1/risk/calculate' });
  t.match(by['log-422'], { status: 422 });
  for (const l of lines) t.ok(typeof l.ms === 'number' && (l.ms as number) >= 0 && typeof l.bytes_out === 'number', `${l.request_id as string}: ms and bytes`);
  t.notMatch(svc.stdout(), /prk_live_/, 'no key anywhere in the log');
  t.notMatch(JSON.stringify(lines), 'x'.repeat(30), 'the route template, not the raw path');
});

t.test('metrics: latency by status, timeouts, worker restarts, storage errors, limiter fallbacks, full-tail repeats, build info', async (t) => {
  const m = (await call(base, 'GET', '/metrics')).text;
  t.match(m, /http_request_duration_seconds_bucket\{[^}]*route="\/api\/v1\/risk\/calculate"[^}]*status="422"/, 'latency labelled by status');
  for (const name of [
    'calculation_timeouts_total',
    'engine_worker_restarts_total',
    'storage_errors_total',
    'rate_limit_fallback_total',
    'engine_full_tail_repeats_total',
  ])
    t.match(m, new RegExp(`^${name} 0$`, 'm'), `${name} counted (0 here)`);
  const info =
    /^risk_service_build_info\{version="\d+\.\d+\.\d+",engine_kind="(native|wasm)",engine="([\w-]+)",engine_version="[\d.]+",node="([^"]+)"\} 1$/m.exec(m);
  t.ok(info, 'build info');
  t.equal(info?.[2]?.split('-')[0], info?.[1], "the engine kind is the build's kind");
  t.equal(info?.[3], process.version, 'the Node that runs');
  t.equal(info?.[2], (await call(base, 'GET', '/readyz')).body.engine, 'the build /readyz reports');
});
