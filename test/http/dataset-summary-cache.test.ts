// A dataset's summary is serialized once and the same bytes reused (review M4: a summary can be
// megabytes and GET has no rate limit); a deleted dataset's summary is not served, nor another
// owner's. The service runs in this process, so how often it serializes a summary is counted by
// watching JSON.stringify (no clock involved).
import t from 'tap';
import { call, upload } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const CSV = 'date,AAA,BBB\n2020-01-01,1,2\n2020-01-02,1.5,2.5\n2020-01-03,1.25,2.75\n';

t.test('the summary is serialized once: upload and GETs answer the same bytes; deleted, it is gone', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const stringify = JSON.stringify;
  let watched = '';
  let serialized = 0;
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    const v = value as { dataset_id?: unknown; dataset?: unknown } | null;
    if (watched !== '' && typeof v === 'object' && v !== null && v.dataset_id === watched && v.dataset !== undefined) serialized++;
    return (stringify as (...a: unknown[]) => string)(value, ...rest);
  }) as typeof JSON.stringify;
  t.teardown(() => {
    JSON.stringify = stringify;
  });

  const up = await upload(s.base, s.key, CSV);
  t.equal(up.status, 200);
  const id = up.body.dataset_id as string;
  watched = id;
  const path = `/api/v1/risk/datasets/${id}`;
  const first = await call(s.base, 'GET', path, { key: s.key });
  const second = await call(s.base, 'GET', path, { key: s.key });
  t.equal(first.status, 200);
  t.equal(second.text, first.text, 'two GETs answer identical bytes');
  t.equal(first.text, up.text, 'the same bytes as the upload answered');
  t.equal(serialized, 0, 'and neither GET serialized the summary again (the upload did, once)');

  const bob = await s.newKey({ owner: 'bob' });
  t.equal((await call(s.base, 'GET', path, { key: bob.key })).status, 404, "another owner's GET: 404, cache or not");

  t.equal((await call(s.base, 'DELETE', path, { key: s.key })).status, 200);
  const gone = await call(s.base, 'GET', path, { key: s.key });
  t.equal(gone.status, 404, "a deleted dataset's summary is not served");
  t.equal(gone.body.detail.code, 'DATASET_NOT_FOUND');
});
