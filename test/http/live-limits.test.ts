// Live risk (API contract §17) at its edges, through the real uWS server: authentication failures,
// the limits (subscriptions per key, scenario memory, messages per second), revocation closing the
// socket, a slow reader getting the latest state rather than a growing buffer, and SIGTERM's drain.
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { LiveError, LiveRisk } from '../../src/contract/openapi-live.js';
import { calcBody, call, uploadFile } from '../helpers/http.js';
import { LiveClient, type LiveMessage } from '../helpers/live-client.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

/** A counter's value in the Prometheus text of GET /metrics (served on the loopback listener). */
async function metric(base: string, name: string): Promise<number> {
  const text = (await call(base, 'GET', '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

/**
 * Stops `c` reading, then sends `batch()` every 20 ms until the counter `counted` rises (the
 * kernel's buffers full, then uWS's beyond LIVE_MAX_BUFFERED_BYTES), and reads again. Gives the
 * number of messages sent.
 */
async function unreadUntil(base: string, c: LiveClient, counted: string, batch: (sent: number) => number): Promise<number> {
  const raw = (c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  raw.pause();
  const before = await metric(base, counted);
  let sent = 0;
  await waitFor(
    async () => {
      sent += batch(sent);
      await new Promise((r) => setTimeout(r, 20));
      return (await metric(base, counted)) > before || undefined;
    },
    `${counted} to rise while the socket was full`,
    240_000,
    0,
  );
  raw.resume();
  return sent;
}

t.test('authentication', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());

  const bad = await LiveClient.open(s.base, 'prk_live_' + 'x'.repeat(32));
  t.same((await bad.closed).code, 4401, 'a bad key closes 4401');

  const early = await LiveClient.open(s.base);
  early.send({ type: 'subscribe', id: 'a', request: {} });
  t.same((await early.closed).code, 4401, 'a message before auth closes 4401');
  // Whatever it is: nothing is answered before a key (each was answered with an error, the socket left open).
  for (const message of ['{not json', { type: 'subscribe' }, { type: 'hello' }, { type: 'auth' }, { type: 'auth', key: 7 }]) {
    const c = await LiveClient.open(s.base);
    c.send(message);
    const closed = await c.closed;
    t.same([closed.code, closed.reason], [4401, 'API_KEY_MISSING'], `${JSON.stringify(message)} before auth closes 4401`);
    t.same(c.received, [], 'and is answered nothing');
  }
  // Behind a good auth, a bad message is answered as ever.
  const behind = await LiveClient.open(s.base, s.key);
  behind.send('{not json');
  t.equal((await behind.next((m) => m.type === 'error')).detail.code, 'MALFORMED_JSON', 'a bad message sent right behind the auth is answered');
  behind.close();
  // Over 1 MiB uWS drops the connection without a close frame; the server serves the next socket.
  const large = await LiveClient.open(s.base, s.key);
  large.send(JSON.stringify({ type: 'prices', id: 'x', prices: {}, pad: 'x'.repeat(1 << 20) }));
  t.equal((await large.closed).code, 1006, 'a message over 1 MiB: the connection dropped (1006)');
  const after = await LiveClient.open(s.base, s.key);
  after.send({ type: 'hello' });
  t.equal((await after.next((m) => m.type === 'error')).detail.code, 'VALIDATION_ERROR', 'the next socket is served');
  after.close();

  const silent = await LiveClient.open(s.base);
  const started = performance.now();
  const closed = await silent.closed;
  t.equal(closed.code, 4401, 'no auth message within 5 s closes 4401');
  t.ok(performance.now() - started >= 4900, 'not before the 5 s');

  const plain = await call(s.base, 'GET', '/api/v1/risk/live');
  t.equal(plain.status, 426, 'a GET without the upgrade: 426 UPGRADE_REQUIRED');
});

t.test('limits, revocation, slow reader, drain', async (t) => {
  const s = await startTestService({ LIVE_MAX_SUBSCRIPTIONS: '2', LIVE_SCENARIO_MB: '1', LIVE_MESSAGES_PER_SEC: '1000', LIVE_MAX_BUFFERED_BYTES: '1024' });
  let stopped = false;
  t.teardown(() => (stopped ? undefined : s.stop()));
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  const small = calcBody(ds, { simulations: 1000 });

  t.test('subscriptions per key and scenario memory', async (t) => {
    const a = await LiveClient.open(s.base, s.key);
    const b = await LiveClient.open(s.base, s.key);
    t.teardown(() => (a.close(), b.close()));
    // (3 symbols + 1 column of group sums + 0.25 of kept rows) × 50,000 scenarios × 8 bytes = 1.6 MiB > LIVE_SCENARIO_MB = 1.
    a.send({ type: 'subscribe', id: 'big', request: calcBody(ds, { simulations: 50_000 }) });
    const big = await a.next((m) => m.type === 'error');
    t.equal(big.detail.code, 'VALIDATION_ERROR', 'scenario memory beyond LIVE_SCENARIO_MB: 422');
    t.same(big.detail.errors[0].loc, ['request', 'simulations']);
    t.ok(Value.Check(LiveError, big), 'an error message as the OpenAPI document’s LiveError says');
    a.send({ type: 'subscribe', id: 's1', request: small });
    a.send({ type: 'subscribe', id: 's2', request: small });
    t.ok(Value.Check(LiveRisk, await a.risk('s1')), 'a risk message as the OpenAPI document’s LiveRisk says');
    await a.risk('s2');
    b.send({ type: 'subscribe', id: 's3', request: small });
    const third = await b.next((m) => m.type === 'error');
    t.equal(third.detail.code, 'RATE_LIMIT_EXCEEDED', 'LIVE_MAX_SUBSCRIPTIONS per key, over all its sockets');
    a.send({ type: 'unsubscribe', id: 's1' });
    b.send({ type: 'subscribe', id: 's3', request: small });
    t.equal((await b.risk('s3')).seq, 0, 'an unsubscribe frees its place');
  });

  t.test('a socket closed mid-burst frees its places; the server carries on', async (t) => {
    // A subscription under a fresh id once the key has a place: the client sees its own close at
    // once, the server a moment later (it may read the next socket's messages first), and until
    // then the closed socket's places are taken (RATE_LIMIT_EXCEEDED).
    const subscribed = async (c: LiveClient, what: string): Promise<string> => {
      let id = '';
      await waitFor(async () => {
        id = `y${Math.random()}`.replace('.', '');
        c.send({ type: 'subscribe', id, request: small });
        const m = await c.next((m) => (m.type === 'risk' && m.id === id) || m.type === 'error');
        if (m.type === 'risk') return true;
        t.equal(m.detail.code, 'RATE_LIMIT_EXCEEDED', 'only while the closes are being seen');
        return undefined;
      }, what);
      return id;
    };
    for (let round = 0; round < 3; round++) {
      const c = await LiveClient.open(s.base, s.key);
      const x1 = await subscribed(c, `round ${round}: a first place`);
      const x2 = await subscribed(c, `round ${round}: a second place`);
      for (let i = 0; i < 100; i++) c.send({ type: 'prices', id: i % 2 ? x1 : x2, prices: { AAPL: 100 + i } });
      c.ws.terminate();
      await c.closed;
    }
    // Both places of the key are free again (LIVE_MAX_SUBSCRIPTIONS = 2) once the server saw the closes.
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    await subscribed(c, 'a first place free');
    c.send({ type: 'subscribe', id: 'z', request: small });
    t.equal((await c.risk('z')).seq, 0, 'and a second');
  });

  t.test('messages per second per socket', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    // Faster than 1,000 a second, however slow the machine: batches of 500 until one is refused.
    const refused = (m: LiveMessage) => m.type === 'error' && m.detail?.code === 'RATE_LIMIT_EXCEEDED';
    await waitFor(() => {
      for (let i = 0; i < 500; i++) c.send({ type: 'unsubscribe', id: 'none' });
      return c.received.some(refused) || undefined;
    }, 'a message refused for the rate');
    const limited = await c.next(refused);
    t.match(limited.detail.message, /messages per second/);
  });

  t.test('a slow reader gets the latest state, never a growing buffer', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    c.send({ type: 'subscribe', id: 'slow', request: calcBody(ds, { simulations: 1000, method_options: { seed: 1, histogram_bins: 200 } }) });
    await c.risk('slow');
    // Within the 1,000 messages per second: new prices, each priced on its own or coalesced.
    const sent = await unreadUntil(s.base, c, 'live_updates_superseded_total', (from) => {
      for (let i = 1; i <= 10; i++) c.send({ type: 'prices', id: 'slow', prices: { AAPL: 100 + from + i } });
      return 10;
    });
    const last = await c.risk('slow', sent);
    t.equal(last.seq, sent, `the latest state arrives once the reader reads again (${sent} inputs)`);
    const seqs = c.received.filter((m) => m.type === 'risk').map((m) => m.seq as number);
    t.ok(seqs.length < sent + 1, `${sent + 1 - seqs.length} updates were superseded, none queued without bound`);
    t.ok(
      seqs.every((q, i) => i === 0 || q > seqs[i - 1]!),
      'still in seq order',
    );
  });

  t.test('a client sending without reading gets no growing queue of errors', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    t.teardown(() => c.close());
    // Each is an error (no such subscription, or beyond the messages per second).
    const sent = await unreadUntil(s.base, c, 'live_errors_dropped_total', () => {
      for (let i = 0; i < 500; i++) c.send({ type: 'prices', id: 'none', prices: { AAPL: 100 } });
      return 500;
    });
    // The socket still serves once the reader reads (and the per-second budget has refilled).
    await waitFor(
      async () => {
        c.send({ type: 'unsubscribe', id: 'probe' });
        await new Promise((r) => setTimeout(r, 50));
        return c.received.some((m) => m.type === 'error' && m.id === 'probe') || undefined;
      },
      'an answer to a message sent after reading again',
      120_000,
      0,
    );
    const errors = c.received.filter((m) => m.type === 'error' && m.id !== 'probe').length;
    t.ok(errors < sent, `${sent - errors} of ${sent} errors dropped, none queued without bound`);
  });

  t.test('revocation closes the socket within the reload interval', async (t) => {
    const { id, key } = await s.newKey();
    const c = await LiveClient.open(s.base, key);
    c.send({ type: 'subscribe', id: 'r', request: small });
    await c.risk('r');
    await s.keys.revoke(id);
    t.equal((await c.closed).code, 4401, 'closed 4401 after the revocation');
  });

  t.test('SIGTERM drains subscribers with 1001', async (t) => {
    const c = await LiveClient.open(s.base, s.key);
    c.send({ type: 'subscribe', id: 'd', request: small });
    await c.risk('d');
    stopped = true;
    const stopping = s.stop();
    t.equal((await c.closed).code, 1001, 'going away');
    await stopping;
  });
});
