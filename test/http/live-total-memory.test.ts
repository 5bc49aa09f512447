// Live risk's service-wide scenario memory (LIVE_TOTAL_SCENARIO_MB), through the real uWS server:
// one owner's subscriptions, each within LIVE_SCENARIO_MB, cannot take what every other owner
// needs — a subscription beyond the total is refused with SERVER_BUSY, and an unsubscribe or a
// closed socket gives its memory back (live_scenario_bytes follows).
import t from 'tap';
import { calcBody, call, uploadFile } from '../helpers/http.js';
import { LiveClient } from '../helpers/live-client.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const gauge = async (base: string) => {
  const line = (await call(base, 'GET', '/metrics')).text.split('\n').find((l) => l.startsWith('live_scenario_bytes '));
  return Number(line?.split(' ')[1] ?? NaN);
};

t.test('the scenario memory of every subscription together is bounded', async (t) => {
  const s = await startTestService({ LIVE_SCENARIO_MB: '1', LIVE_TOTAL_SCENARIO_MB: '1' });
  t.teardown(() => s.stop());
  const bob = await s.newKey({ owner: 'bob' });
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const bobDs = (await uploadFile(s.base, bob.key, WIDE_SAMPLE)).body.dataset_id as string;
  // (3 symbols + 1 column of group sums + (1 + 3) × 16 / 256 of kept worst rows) × 30,000
  // scenarios × 8 bytes = 1,020,000 bytes: one fits in 1 MiB, two do not.
  const bytes = (3 + 1 + (4 * 16) / 256) * 30_000 * 8;
  t.equal(await gauge(s.base), 0, 'nothing held before');

  const alice = await LiveClient.open(s.base, s.key);
  const other = await LiveClient.open(s.base, bob.key);
  t.teardown(() => (alice.close(), other.close()));
  alice.send({ type: 'subscribe', id: 'a', request: calcBody(ds, { simulations: 30_000 }) });
  t.equal((await alice.risk('a')).seq, 0, 'the first subscription is answered');
  t.equal(await gauge(s.base), bytes, 'live_scenario_bytes counts it');

  other.send({ type: 'subscribe', id: 'b', request: calcBody(bobDs, { simulations: 30_000 }) });
  const refused = await other.next((m) => m.type === 'error');
  t.equal(refused.id, 'b');
  t.equal(refused.detail.code, 'SERVER_BUSY', "another owner's subscription beyond LIVE_TOTAL_SCENARIO_MB: 503");
  t.match(refused.detail.message, /LIVE_TOTAL_SCENARIO_MB/);
  t.equal(await gauge(s.base), bytes, 'the refused one holds nothing');

  alice.send({ type: 'unsubscribe', id: 'a' });
  await waitFor(async () => (await gauge(s.base)) === 0, 'the unsubscribe gives the memory back');
  other.send({ type: 'subscribe', id: 'b', request: calcBody(bobDs, { simulations: 30_000 }) });
  t.equal((await other.risk('b')).seq, 0, 'then the other owner subscribes');

  other.close();
  await waitFor(async () => (await gauge(s.base)) === 0, 'a closed socket gives its memory back');
  alice.send({ type: 'subscribe', id: 'a2', request: calcBody(ds, { simulations: 30_000 }) });
  t.equal((await alice.risk('a2')).seq, 0, 'and the memory is there again');
});
