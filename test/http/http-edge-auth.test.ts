// Review H3 and L6: the failed-authentication gate counts failures only, never refuses a valid key,
// tells the real refill time, and sees the client behind a trusted proxy (and only then).
import t from 'tap';
import { call, type Reply } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const LIST = '/api/v1/risk/datasets';

const bad = (base: string, headers: Record<string, string> = {}): Promise<Reply> => call(base, 'GET', LIST, { key: 'bad', headers });

/** Bad keys until one is refused with 429 (each 401 before it spent a token of the gate). */
async function exhaust(base: string, headers: Record<string, string> = {}, most = 100): Promise<{ refused: Reply; failures: number }> {
  for (let failures = 0; failures < most; failures++) {
    const r = await bad(base, headers);
    if (r.status === 429) return { refused: r, failures };
    if (r.status !== 401) throw new Error(`a bad key got ${r.status}`);
  }
  throw new Error(`${most} bad keys and no 429`);
}

t.test('25 bad keys, then a good key is answered; the gate still refuses bad keys, with the real refill', async (t) => {
  const s = await startTestService({ AUTH_FAILURES_PER_MIN: '25' });
  t.teardown(() => s.stop());
  const statuses = [];
  for (let i = 0; i < 25; i++) statuses.push((await bad(s.base)).status);
  t.same([...new Set(statuses)], [401], 'the first 25 failures fit the budget of 25');
  const good = await call(s.base, 'GET', LIST, { key: s.key });
  t.equal(good.status, 200, 'a valid key from the same address is answered, whatever the address did');
  // Usually the 26th bad key; on a machine slow enough that a token came back meanwhile, a later one.
  const { refused, failures } = await exhaust(s.base);
  t.ok(failures < 25, `the gate shuts again at once (${failures} more failures first)`);
  const retryAfter = Number(refused.headers.get('retry-after'));
  // 25 per minute: a token every 2.4 s, so the real wait is 1 to 3 whole seconds (not 60).
  t.ok(retryAfter >= 1 && retryAfter <= 3, `Retry-After ${retryAfter} is the bucket's refill time`);
  t.equal(refused.headers.get('cache-control'), 'no-store');
  t.equal((await call(s.base, 'GET', LIST, { key: s.key })).status, 200, 'a valid key is still answered while the gate is shut');
  const { ms } = await waitFor(async () => ((await bad(s.base)).status === 401 ? true : undefined), 'the gate to reopen');
  t.pass(`the gate reopened ${Math.round(ms)} ms after a Retry-After of ${retryAfter} s`);
  const metrics = (await call(s.base, 'GET', '/metrics')).text;
  t.match(metrics, /auth_failures_total\{reason="invalid"\} \d+/, 'failures are counted by reason');
  t.match(metrics, /auth_failures_total\{reason="rate_limited"\} [1-9]/, 'refusals by the gate are counted');
});

t.test('behind a trusted proxy each forwarded client has its own budget', async (t) => {
  const s = await startTestService({ AUTH_FAILURES_PER_MIN: '3', TRUSTED_PROXIES: '127.0.0.1' });
  t.teardown(() => s.stop());
  const a = { 'X-Forwarded-For': '203.0.113.1' };
  const b = { 'X-Forwarded-For': '203.0.113.2' };
  const { failures } = await exhaust(s.base, a);
  t.equal(failures, 3, 'client a spent its 3 failures');
  t.equal((await bad(s.base, b)).status, 401, 'client b is not refused for client a’s failures');
  // The right-most address that is not a trusted proxy is the client: the one the proxy saw.
  t.equal((await bad(s.base, { 'X-Forwarded-For': '198.51.100.7, 203.0.113.1, 127.0.0.1' })).status, 429, 'a forged left-most address does not help a');
  t.equal((await call(s.base, 'GET', LIST, { key: s.key, headers: a })).status, 200, 'a valid key of client a is answered');
});

t.test('without TRUSTED_PROXIES, X-Forwarded-For is ignored', async (t) => {
  const s = await startTestService({ AUTH_FAILURES_PER_MIN: '3' });
  t.teardown(() => s.stop());
  await exhaust(s.base, { 'X-Forwarded-For': '203.0.113.1' });
  t.equal((await bad(s.base, { 'X-Forwarded-For': '203.0.113.2' })).status, 429, 'the budget is the TCP peer’s, whatever the header says');
});
