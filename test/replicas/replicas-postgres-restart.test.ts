import net from 'node:net';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { waitFor } from '../helpers/wait.js';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { startReplicas } from '../helpers/replicas.js';
import { WIDE_SAMPLE } from '../helpers/service.js';
import { statusOf } from '../helpers/raw-socket.js';

// PostgreSQL restarts under two replicas: what needs it answers 503 (never 500, never a hang), what
// does not keeps working, and everything succeeds again once it is back.
const replicas = await startReplicas(t, { count: 2, redis: false });
const [a, b] = replicas.bases as [string, string];
const { key } = await replicas.createKey({ upload: 100, calculate: 10_000 });
const datasetId = (await uploadFile(a, key, WIDE_SAMPLE)).body.dataset_id as string;
const path = `/api/v1/risk/datasets/${datasetId}`;
const body = calcBody(datasetId, { simulations: 1_000 });

/** An upload whose body is sent in two halves, `between` running after the first. */
async function splitUpload(base: string, between: () => void): Promise<string> {
  const boundary = 'splitboundary7f3a';
  const csv = readFileSync(WIDE_SAMPLE);
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    csv,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const port = Number(new URL(base).port);
  const socket = net.connect(port, '127.0.0.1');
  let response = '';
  socket.on('data', (c) => (response += c.toString('latin1')));
  const closed = new Promise((r) => socket.on('close', r));
  await new Promise((r) => socket.on('connect', r));
  socket.write(
    `POST /api/v1/risk/datasets/upload HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
      `Content-Length: ${payload.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(payload.subarray(0, payload.length >> 1));
  between(); // the request is in flight: its head and half its body are on the way

  socket.write(payload.subarray(payload.length >> 1));
  // A generous cap, only so that a server that never answers fails the test instead of hanging it.
  await Promise.race([closed, new Promise((r) => setTimeout(r, 60_000))]);
  socket.destroy();
  return response;
}

t.test('before: both replicas serve the dataset', async (t) => {
  t.equal((await call(b, 'GET', path, { key })).status, 200);
  t.equal((await calculate(b, key, body)).status, 200);
});

t.test('PostgreSQL stops: in-flight and new requests that need it fail cleanly with 503', async (t) => {
  const inFlight = await splitUpload(a, () => replicas.postgres.stop('fast'));
  t.equal(statusOf(inFlight), 503, 'the upload in flight when the database stopped: 503');
  t.match(inFlight, /"code":"SERVER_BUSY"/);
  t.match(inFlight, /Retry-After: \d+/i);

  // Cached datasets are used until DATASET_RECHECK_MS has passed, then rechecked against the database.
  await waitFor(async () => ((await call(b, 'GET', path, { key })).status !== 200 ? true : undefined), 'cached datasets to be rechecked', 60_000);
  const replies = await Promise.all([
    call(a, 'GET', path, { key }),
    call(b, 'GET', path, { key }),
    calculate(a, key, body),
    calculate(b, key, body),
    uploadFile(b, key, WIDE_SAMPLE),
    call(a, 'DELETE', path, { key }),
  ]);
  t.same(
    replies.map((r) => r.status),
    [503, 503, 503, 503, 503, 503],
    'every request that needs the database: 503',
  );
  t.ok(
    replies.every((r) => r.body?.detail?.code === 'SERVER_BUSY' && Number(r.headers.get('retry-after')) >= 1),
    'SERVER_BUSY with Retry-After',
  );
  t.equal((await call(a, 'GET', '/readyz')).status, 503, 'not ready');
  t.equal((await call(a, 'GET', '/healthz')).status, 200, 'but alive');
});

t.test('PostgreSQL back: later requests succeed on both replicas', async (t) => {
  replicas.postgres.start();
  // Until the replica reconnects, with a generous deadline: how soon depends on the machine.
  const statuses: number[] = [];
  const { ms } = await waitFor(
    async () => {
      const s = (await call(a, 'GET', path, { key })).status;
      statuses.push(s);
      return s === 200 ? true : undefined;
    },
    'the dataset to be served again after PostgreSQL started',
    60_000,
  );
  t.comment(`dataset served again ${ms.toFixed(0)} ms after PostgreSQL started (${statuses.length} requests)`);
  t.ok(
    statuses.every((s) => s === 200 || s === 503),
    `nothing but 503 until it is back: ${[...new Set(statuses)].join(', ')}`,
  );
  for (const base of [a, b]) {
    t.equal((await call(base, 'GET', path, { key })).status, 200, `${base}: dataset`);
    t.equal((await calculate(base, key, body)).status, 200, `${base}: calculate`);
    t.equal((await uploadFile(base, key, WIDE_SAMPLE)).status, 200, `${base}: upload`);
    t.equal((await call(base, 'GET', '/readyz')).status, 200, `${base}: ready`);
  }
  t.equal((await call(b, 'DELETE', path, { key })).status, 200, 'and the dataset can be deleted');
});
