// Load against the real service (child process): 100 connections with 100 keys within their
// limits: no errors, no timeouts, all 200; 50 connections on one key: exactly its limit admitted,
// the rest 429, no 5xx; the same on two replicas sharing Redis (limit in total). Run by
// `npm run test:stress` (and .ci/run).
import t from 'tap';
import autocannon from 'autocannon';
import { FileKeyStore } from '../../src/auth/key-store.js';
import { loadKeySecret } from '../../src/auth/secret.js';
import { calcBody, uploadFile } from '../helpers/http.js';
import { loadCalculate } from '../helpers/load.js';
import { spawnService } from '../helpers/process.js';
import { startReplicas } from '../helpers/replicas.js';
import { tempDir, testEnv, WIDE_SAMPLE } from '../helpers/service.js';

t.test('load', async (t) => {
  const env = testEnv(tempDir('risk-load-'), { WORKERS: '2' });
  const store = new FileKeyStore(env.DATA_DIR!, loadKeySecret(env.SECRET_FILE!));
  const keys: string[] = [];
  for (let i = 0; i < 101; i++) keys.push((await store.create({ name: `load${i}`, owner: 'desk' })).key);
  const svc = await spawnService(env, t);
  const base = `http://127.0.0.1:${svc.port}`;
  const up = await uploadFile(base, keys[100]!, WIDE_SAMPLE);
  const body = JSON.stringify(calcBody(up.body.dataset_id, { simulations: 10_000 }));
  const url = `${base}/api/v1/risk/calculate`;

  let next = 0;
  const withinLimits = await autocannon({
    url,
    connections: 100,
    amount: 500,
    overallRate: 17, // 500 requests spread over 30 s
    duration: 31,
    timeout: 20,
    // Round-robin over the 100 keys: 5 requests each, half of a key's 10/min limit.
    requests: [
      {
        method: 'POST',
        setupRequest: (req: autocannon.Request) => ({
          ...req,
          body,
          headers: { 'content-type': 'application/json', 'x-api-key': keys[next++ % 100]! },
        }),
      },
    ],
  });
  t.equal(withinLimits.errors, 0, 'no errors');
  t.equal(withinLimits.timeouts, 0, 'no timeouts');
  t.equal(withinLimits['2xx'], 500, `all 500 requests answered 200 (p99 ${withinLimits.latency.p99} ms; ${JSON.stringify(withinLimits.statusCodeStats)})`);
  t.equal(withinLimits.non2xx, 0);

  const oneKey = await loadCalculate(base, keys[100]!, body, { connections: 50, duration: 4 });
  // keys[100] only uploaded so far (a separate bucket): its calculate bucket is full, 10 tokens,
  // and 4 s refill less than one more (10/min).
  t.equal(oneKey['2xx'], 10, 'one key: exactly its limit admitted');
  t.equal(oneKey['4xx'], oneKey.requests.total - 10, `every other answer is 429 (${oneKey.requests.total} requests)`);
  t.equal(oneKey['5xx'], 0, 'no 5xx');
  t.equal(oneKey.errors, 0);
  svc.child.kill('SIGTERM');
  t.equal(await svc.exited, 0);
});

t.test('one key hammered on two replicas sharing Redis: exactly its limit in total', async (t) => {
  const replicas = await startReplicas(t, { count: 2, redis: true });
  const { key: uploader } = await replicas.createKey({ upload: 10, calculate: 1_000 });
  const datasetId = (await uploadFile(replicas.bases[0]!, uploader, WIDE_SAMPLE)).body.dataset_id as string;
  const { key } = await replicas.createKey(); // 10 per minute
  const body = JSON.stringify(calcBody(datasetId, { simulations: 10_000 }));
  const runs = await Promise.all(replicas.bases.map((base) => loadCalculate(base, key, body, { connections: 25, duration: 4 })));
  const total = (f: (r: autocannon.Result) => number) => runs.reduce((n, r) => n + f(r), 0);
  const requests = total((r) => r.requests.total);
  t.equal(
    total((r) => r['2xx']),
    10,
    `exactly 10 admitted across both replicas (of ${requests} requests)`,
  );
  t.equal(
    total((r) => r['4xx']),
    requests - 10,
    'every other answer is 429',
  );
  t.equal(
    total((r) => r['5xx']),
    0,
    'no 5xx',
  );
  t.equal(
    total((r) => r.errors),
    0,
  );
  t.comment(`two replicas, one key, 50 connections for 4 s: ${requests} requests, ${(requests / 4).toFixed(0)}/s, 10 admitted`);
});
