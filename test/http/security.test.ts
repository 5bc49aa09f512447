// Identifiers that are public are not credentials.
import t from 'tap';
import { call, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

t.test('a key id used as a key is refused; dataset ids do not grant access', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const { id, key } = await s.newKey();
  const ds = (await uploadFile(s.base, key, WIDE_SAMPLE)).body.dataset_id as string;
  const asKey = await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`, { key: id });
  t.equal(asKey.status, 401, 'key id is not a key');
  const prefixed = await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`, { key: `prk_live_${id.slice(4).padEnd(32, '0')}` });
  t.equal(prefixed.status, 401, 'nor is anything built from it');
  const other = await s.newKey({ owner: 'eve' });
  t.equal((await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`, { key: other.key })).status, 404, 'knowing a dataset id is not enough');
  t.equal((await call(s.base, 'GET', `/api/v1/risk/datasets/${ds}`, { key })).status, 200);
});
