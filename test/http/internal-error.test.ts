// 500 INTERNAL_ERROR: a dataset file corrupted on disk is detected by its checksum; the client
// gets the generic error (no stack, no path) and the service keeps serving.
import t from 'tap';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

t.test('corrupted dataset file: 500 INTERNAL_ERROR, nothing leaked, service alive', async (t) => {
  const first = await startTestService();
  const good = (await uploadFile(first.base, first.key, WIDE_SAMPLE)).body.dataset_id as string;
  const bad = (await uploadFile(first.base, first.key, WIDE_SAMPLE)).body.dataset_id as string;
  const key = first.key;
  await first.stop(true);

  const dir = path.join(first.config.dataDir, 'datasets');
  const file = path.join(
    dir,
    readdirSync(dir).find((f) => f.startsWith(bad))!,
  );
  const bytes = readFileSync(file);
  bytes.writeUInt8(bytes.readUInt8(bytes.length - 3) ^ 0xff, bytes.length - 3); // flip bits in the price data
  writeFileSync(file, bytes);

  // A second service on the same DATA_DIR (nothing cached) reads the damaged file.
  const s = await startTestService({}, first.dir);
  t.teardown(() => s.stop());
  const r = await calculate(s.base, key, calcBody(bad));
  t.equal(r.status, 500);
  t.same(r.body, { detail: { code: 'INTERNAL_ERROR', message: 'Internal error.', request_id: r.headers.get('x-request-id') } });
  t.notMatch(r.text, /checksum|\/tmp|\.ds|at /, 'no detail, path or stack');
  t.equal((await calculate(s.base, key, calcBody(good))).status, 200, 'other datasets still work');
  t.equal((await call(s.base, 'GET', '/healthz')).status, 200);
});
