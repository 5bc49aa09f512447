// Hostile and broken HTTP: the process never exits, nothing partial is stored, and a valid
// request afterwards still works.
import t from 'tap';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { calcBody, calculate, call, csvForm, upload, uploadFile } from '../helpers/http.js';
import { waitFor } from '../helpers/wait.js';
import { metricValue } from '../helpers/replicas.js';
import { rawExchange, statusOf } from '../helpers/raw-socket.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

t.test('hostile input', async (t) => {
  // A deadline of an hour: the heavy calculation below must be admitted however slow this machine
  // is (admission refuses at once what its own estimate puts past twice the deadline).
  const s = await startTestService({ MAX_UPLOAD_BYTES: String(8 * 1024 * 1024), CALC_TIMEOUT_MS: '3600000' });
  t.teardown(() => s.stop());
  const port = Number(new URL(s.base).port);
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const stillWorks = async (t: { equal: (a: unknown, b: unknown, m: string) => void }, what: string) =>
    t.equal((await calculate(s.base, s.key, calcBody(ds, { simulations: 1000 }))).status, 200, `valid request works after ${what}`);
  const datasetFiles = () => readdirSync(path.join(s.config.dataDir, 'datasets')).length;

  t.test('headers', async (t) => {
    const huge = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(200_000)}\r\n\r\n`);
    t.not(statusOf(huge), 200, 'oversized headers are not served');
    const two = await call(s.base, 'POST', '/api/v1/risk/calculate', { json: calcBody(ds), headers: { 'X-API-Key': `${s.key}, ${s.key}` } });
    t.equal(two.status, 401, 'a comma-joined pair of keys is not a key');
    const twoRaw = await rawExchange(port, `GET /api/v1/risk/datasets/${ds} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.key}\r\nX-API-Key: ${s.key}\r\n\r\n`);
    t.equal(statusOf(twoRaw), 401, 'two X-API-Key headers: 401');
    const smuggle = await rawExchange(
      port,
      `POST /api/v1/risk/calculate HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nX-API-Key: ${s.key}\r\nContent-Type: application/json\r\n\r\n0\r\n\r\n`,
    );
    t.not(statusOf(smuggle), 200, 'Content-Length with Transfer-Encoding is not processed as a request');
    t.notOk(statusOf(smuggle) >= 500, 'and is not a 5xx');
    await stillWorks(t, 'header abuse');
  });

  t.test('truncated bodies and disconnects', async (t) => {
    await rawExchange(
      port,
      `POST /api/v1/risk/calculate HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`,
      300,
    );
    const before = datasetFiles();
    const uploadsBefore = await uploadsFinished(s.base);
    const form = `--B\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ndate,A\n${'2020-01-01,1\n'.repeat(1000)}`;
    await rawExchange(
      port,
      `POST /api/v1/risk/datasets/upload HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.key}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 5000000\r\n\r\n${form}`,
      300,
    );
    await waitFor(async () => ((await uploadsFinished(s.base)) > uploadsBefore ? true : undefined), 'the server to finish the cut-off upload');
    t.equal(datasetFiles(), before, 'an upload cut off mid-body stores nothing');
    // A client that leaves mid-calculation: abort once the engine is computing (a condition, not a
    // delay), then the engine must stop — its tasks end, their workers replaced — and the request
    // count as 499, long before the calculation could have finished (minutes of work).
    const restartsBefore = await metricValue(s.base, 'engine_worker_restarts_total');
    const leftBefore = await clientClosed(s.base);
    const timeoutsBefore = await metricValue(s.base, 'calculation_timeouts_total');
    const controller = new AbortController();
    const heavy = fetch(`${s.base}/api/v1/risk/calculate`, {
      method: 'POST',
      headers: { 'X-API-Key': s.key, 'Content-Type': 'application/json' },
      body: JSON.stringify(calcBody(ds, { method: 'monte_carlo_student_t', simulations: 10_000_000, time_horizon: 250 })),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await waitFor(async () => ((await metricValue(s.base, 'engine_tasks_in_flight')) > 0 ? true : undefined), 'the calculation to start');
    controller.abort();
    t.equal(await heavy, 'aborted');
    // Piscina ends the thread of a task aborted while running, and starts another in its place.
    const stopped = async () =>
      (await metricValue(s.base, 'engine_tasks_in_flight')) === 0 && (await metricValue(s.base, 'engine_worker_restarts_total')) > restartsBefore;
    const { ms } = await waitFor(async () => ((await stopped()) ? true : undefined), 'the engine to stop and its workers to be replaced', 60_000);
    t.comment(`the engine stopped ${ms.toFixed(0)} ms after the client left`);
    await waitFor(async () => ((await clientClosed(s.base)) > leftBefore ? true : undefined), 'the request to be counted as 499');
    t.equal(await metricValue(s.base, 'calculation_timeouts_total'), timeoutsBefore, 'stopped by the client leaving, not by its deadline');
    await stillWorks(t, 'disconnects');
  });

  t.test('a client sending 1 byte per second does not hold up others', async (t) => {
    const slow = net.connect(port, '127.0.0.1');
    slow.on('error', () => undefined);
    let slowAnswered = false;
    slow.on('data', () => (slowAnswered = true));
    const request = `GET /healthz HTTP/1.1\r\nHost: x\r\n`;
    let sent = 0;
    const timer = setInterval(() => sent < request.length && slow.write(request[sent++]!), 1000);
    // Others are served whenever they ask while the slow request is still arriving, byte by byte.
    for (let bytes = 1; bytes <= 3; bytes++) {
      await waitFor(() => (sent >= bytes ? true : undefined), `byte ${bytes} of the slow request`);
      await stillWorks(t, `${bytes} bytes into a slow client's request`);
      t.notOk(slowAnswered, 'served while the slow request is still incomplete');
    }
    clearInterval(timer);
    slow.destroy();
  });

  t.test('10,000 random byte sequences', async (t) => {
    for (let c = 0; c < 100; c++) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          for (let i = 0; i < 100; i++) socket.write(randomBytes(1 + (i % 64)));
          setTimeout(() => socket.destroy(), 5);
        });
        socket.on('error', () => resolve());
        socket.on('close', () => resolve());
        socket.resume();
      });
    }
    t.equal((await call(s.base, 'GET', '/healthz')).status, 200, 'alive');
    await stillWorks(t, 'random bytes');
  });

  t.test('JSON abuse', async (t) => {
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const r = await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, body: deep, headers: { 'Content-Type': 'application/json' } });
    t.ok([400, 422].includes(r.status), `10,000-level nesting: ${r.status}`);
    const big = await call(s.base, 'POST', '/api/v1/risk/calculate', {
      key: s.key,
      body: 'x'.repeat(2 * 1024 * 1024),
      headers: { 'Content-Type': 'application/json' },
    });
    t.equal(big.status, 413, '2 MiB body');
    const inf = await call(s.base, 'POST', '/api/v1/risk/calculate', {
      key: s.key,
      body: JSON.stringify(calcBody(ds)).replace('"portfolio_value":1000000', '"portfolio_value":1e999'),
      headers: { 'Content-Type': 'application/json' },
    });
    t.equal(inf.status, 422, 'a non-finite number (1e999) is refused');
    const wrong: unknown[] = [null, true, 'x', 1.5, -1, [], {}];
    for (const field of Object.keys(calcBody(ds))) {
      for (const value of wrong) {
        const res = await calculate(s.base, s.key, { ...calcBody(ds), [field]: value });
        if (res.status === 200) continue; // a value that happens to be valid for the field
        const expected = field === 'dataset_id' && typeof value === 'string' ? 404 : 422; // a well-formed id of no dataset
        t.equal(res.status, expected, `${field} = ${JSON.stringify(value)}: ${expected}`);
      }
    }
    t.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  t.test('multipart abuse', async (t) => {
    const badHeaders = await call(s.base, 'POST', '/api/v1/risk/datasets/upload', {
      key: s.key,
      body: '--B\r\nContent-Disposition form-data name=file\r\n\r\ndate,A\r\n--B--\r\n',
      headers: { 'Content-Type': 'multipart/form-data; boundary=B' },
    });
    t.ok([400, 422].includes(badHeaders.status), `malformed part headers: ${badHeaders.status}`);
    const two = csvForm('date,A\n2020-01-01,1\n2020-01-02,2\n');
    two.append('file', new Blob(['date,A\n']), 'b.csv');
    t.equal((await call(s.base, 'POST', '/api/v1/risk/datasets/upload', { key: s.key, body: two })).status, 422, 'two file parts');
    const quote = await upload(s.base, s.key, 'date,A\n2020-01-01,"1' + 'x'.repeat(3_000_000) + '\n');
    t.match(quote.body.detail, { code: 'INVALID_CSV', reason: 'MALFORMED_CSV' }, 'unterminated quote then megabytes');
    const line = await upload(s.base, s.key, 'date,A\n2020-01-01,' + '1'.repeat(5_000_000) + '\n');
    t.match(line.body.detail, { code: 'INVALID_CSV', reason: 'MALFORMED_CSV' }, 'a 5 MB single line');
    await stillWorks(t, 'multipart abuse');
  });
});

/** Upload requests the server has finished handling (answered or abandoned), from its metrics. */
/** Calculations whose client left before the answer (status 499), from /metrics. */
async function clientClosed(base: string): Promise<number> {
  const line = (await call(base, 'GET', '/metrics')).text
    .split('\n')
    .find((l) => l.startsWith('http_requests_total{') && l.includes('route="/api/v1/risk/calculate"') && l.includes('status="499"'));
  return Number(line?.split(' ').pop() ?? 0);
}

async function uploadsFinished(base: string): Promise<number> {
  const text = (await call(base, 'GET', '/metrics')).text;
  return text
    .split('\n')
    .filter((l) => l.startsWith('http_requests_total{') && l.includes('route="/api/v1/risk/datasets/upload"'))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}
