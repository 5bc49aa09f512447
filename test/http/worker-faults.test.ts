// A worker that throws, exits or runs out of memory: that request gets 500, the pool replaces the
// thread, the next request gets 200. Faults are armed through the test-only ENGINE_FAULT_FILE.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { startTestService, tempDir, WIDE_SAMPLE } from '../helpers/service.js';

t.test('worker faults', async (t) => {
  const faultFile = path.join(tempDir('risk-fault-'), 'fault');
  process.env.NODE_ENV = 'test'; // fault hooks are inert otherwise
  process.env.ENGINE_FAULT_FILE = faultFile; // read by the worker threads of this process
  const s = await startTestService({ WORKERS: '1' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id;
  t.equal((await calculate(s.base, s.key, calcBody(ds))).status, 200, 'healthy first');
  for (const fault of ['throw', 'exit', 'oom']) {
    writeFileSync(faultFile, fault);
    const failed = await calculate(s.base, s.key, calcBody(ds, { method_options: { seed: 9 } }));
    t.equal(failed.status, 500, `${fault}: 500`);
    t.same(
      failed.body,
      { detail: { code: 'INTERNAL_ERROR', message: 'Internal error.', request_id: failed.headers.get('x-request-id') } },
      `${fault}: generic body`,
    );
    const next = await calculate(s.base, s.key, calcBody(ds, { method_options: { seed: 9 } }));
    t.equal(next.status, 200, `${fault}: the next request succeeds on a replaced thread`);
  }
  const metrics = (await call(s.base, 'GET', '/metrics')).text;
  t.match(metrics, /^engine_worker_restarts_total 2$/m, 'the two threads that ended (exit, oom) were replaced and counted');
});
