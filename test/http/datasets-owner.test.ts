// Another owner's dataset is never read (review L5): even when its file is corrupt, a lookup by
// another owner answers 404 as an unknown id does, while its own owner meets the corruption.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { call, upload } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

t.test("another owner's corrupt dataset: 404 like an unknown id, not 500", async (t) => {
  const first = await startTestService();
  const stored = await upload(first.base, first.key, 'date,A,B\n2020-01-01,1,2\n2020-01-02,3,4\n');
  t.equal(stored.status, 200, 'uploaded');
  const id = stored.body.dataset_id as string;
  const dir = first.dir;
  await first.stop(true);
  // The last byte is a price: the header (and its owner) stay readable, the checksum fails.
  const file = path.join(dir, 'data', 'datasets', `${id}.ds`);
  const bytes = readFileSync(file);
  bytes[bytes.length - 1]! ^= 0xff;
  writeFileSync(file, bytes);

  const s = await startTestService({}, dir);
  t.teardown(() => s.stop());
  const bob = await s.newKey({ owner: 'bob' });
  const theirs = await call(s.base, 'GET', `/api/v1/risk/datasets/${id}`, { key: bob.key });
  const unknown = await call(s.base, 'GET', `/api/v1/risk/datasets/ds_${'0'.repeat(22)}`, { key: bob.key });
  t.equal(theirs.status, 404, "bob: 404 for alice's corrupt dataset");
  t.equal(theirs.body?.detail?.code, 'DATASET_NOT_FOUND');
  t.equal(unknown.status, 404, 'as for an unknown id');
  t.equal((await call(s.base, 'DELETE', `/api/v1/risk/datasets/${id}`, { key: bob.key })).status, 404, 'bob cannot delete it either');
  const own = await call(s.base, 'GET', `/api/v1/risk/datasets/${id}`, { key: s.key });
  t.equal(own.status, 500, 'alice meets the corruption (500 INTERNAL_ERROR)');
});
