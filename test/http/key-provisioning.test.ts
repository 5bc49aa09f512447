// A key printed by `keys create` works for the very next request: an unknown key rereads the key
// store once before it is refused, so provisioning scripts need no wait (files here; PostgreSQL in
// replicas.test.ts).
import t from 'tap';
import { call } from '../helpers/http.js';
import { keysCli } from '../helpers/process.js';
import { startTestService, testEnv } from '../helpers/service.js';

const NO_SUCH_DATASET = '/api/v1/risk/datasets/ds_0000000000000000000000';

// The periodic reload is a minute away: only the lookup on a miss can find a new key.
const s = await startTestService({ KEY_RELOAD_MS: '60000', AUTH_FAILURES_PER_MIN: '1000' });
t.teardown(() => s.stop());

t.test('a key from the CLI is accepted by the next request, never 401 first', async (t) => {
  for (let i = 0; i < 3; i++) {
    const created = keysCli(testEnv(s.dir), ['create', '--name', `script-${i}`, '--owner', 'alice', '--json']);
    t.equal(created.code, 0, created.stdout);
    const key = (JSON.parse(created.stdout.trim().split('\n').pop()!) as { key: string }).key;
    t.equal((await call(s.base, 'GET', NO_SUCH_DATASET, { key })).status, 404, `key ${i}: authenticated at once (404, not 401)`);
  }
});

t.test('a key created in the store by another process while guesses arrive is found', async (t) => {
  const guesses = Array.from({ length: 20 }, (_, i) => call(s.base, 'GET', NO_SUCH_DATASET, { key: `prk_live_${String(i).padStart(32, 'x')}` }));
  const created = await s.keys.create({ name: 'concurrent', owner: 'alice' });
  const real = call(s.base, 'GET', NO_SUCH_DATASET, { key: created.key });
  t.same([...new Set((await Promise.all(guesses)).map((r) => r.status))], [401], 'unknown keys are still refused');
  t.equal((await real).status, 404, 'the new key is accepted although misses were being looked up together');
});

t.test('malformed and unknown keys are refused', async (t) => {
  t.equal((await call(s.base, 'GET', NO_SUCH_DATASET, { key: 'prk_live_short' })).status, 401);
  t.equal((await call(s.base, 'GET', NO_SUCH_DATASET, { key: `prk_live_${'A'.repeat(32)}` })).status, 401);
});
