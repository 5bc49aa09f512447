// Overload with goodput: a burst of heavy calculations that cannot all finish before the deadline
// gets answers for some and an immediate 503 SERVER_BUSY (with Retry-After) for the rest — never a
// row of timeouts after 30 s of busy cores. The deadline is set from this machine's own speed.
import t from 'tap';
import { calcBody, calculate, call, uploadFile, type Reply } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

const SYMBOLS = ['AAPL', 'MSFT', 'AMZN', 'GOOGL', 'JPM', 'XOM', 'JNJ', 'PG', 'KO', 'KHC'];
const heavy = (ds: string) =>
  calcBody(ds, { simulations: 4_000_000, time_horizon: 1, confidence_level: 0.99, portfolio: SYMBOLS.map((symbol) => ({ symbol, weight: 0.1 })) });

/** Wall time of one heavy calculation on an idle service, the median of three (after a warm-up). */
async function heavyWallMs(): Promise<number> {
  const s = await startTestService();
  try {
    const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
    await calculate(s.base, s.key, heavy(ds));
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const r = await calculate(s.base, s.key, heavy(ds));
      if (r.status !== 200) throw new Error(`the heavy calculation failed: ${r.text.slice(0, 300)}`);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[1]!;
  } finally {
    await s.stop();
  }
}

t.test('8 heavy calculations at once, with time for about two: some 200s, the rest 503 at once, no timeout', async (t) => {
  const wallMs = await heavyWallMs();
  // Room for about two heavy calculations one after the other (each takes both workers): without
  // admission all eight would share the cores and every one would time out.
  const timeoutMs = Math.ceil(3 * wallMs);
  const s = await startTestService({ CALC_TIMEOUT_MS: String(timeoutMs) });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;
  // Six, so that the cost estimate is mostly theirs: after three, the start-up calibration (a smaller
  // calculation, cheaper per unit) still weighed 23 % and the estimate could fall 25 % short,
  // enough to admit a third calculation that then timed out (a CI run saw it).
  for (let i = 0; i < 6; i++) t.equal((await calculate(s.base, s.key, heavy(ds))).status, 200, 'one alone is served (and teaches the cost model)');

  const arrivals: { reply: Reply; at: number }[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      const reply = await calculate(s.base, s.key, heavy(ds));
      arrivals.push({ reply, at: performance.now() });
    }),
  );
  const statuses = arrivals.map((a) => `${a.reply.status} ${a.reply.body.detail?.code ?? ''}`.trim());
  t.comment(`heavy calculation ${wallMs.toFixed(0)} ms alone; deadline ${timeoutMs} ms; answers in order: ${statuses.join(', ')}`);
  const ok = arrivals.filter((a) => a.reply.status === 200);
  const busy = arrivals.filter((a) => a.reply.body.detail?.code === 'SERVER_BUSY');
  t.equal(arrivals.filter((a) => a.reply.body.detail?.code === 'CALCULATION_TIMEOUT').length, 0, 'no calculation timed out');
  t.ok(ok.length >= 1, `${ok.length} answered`);
  t.ok(busy.length >= 1, `${busy.length} refused`);
  t.equal(ok.length + busy.length, 8, 'every answer is a result or a refusal');
  const firstResult = Math.min(...ok.map((a) => a.at));
  t.ok(
    busy.every((a) => a.at < firstResult),
    'every refusal arrived before the first result: refused at admission, not after computing',
  );
  for (const { reply } of busy) {
    const retryAfter = Number(reply.headers.get('retry-after'));
    t.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`);
    t.equal(reply.body.detail.retry_after_s, retryAfter, 'the body says the same');
  }
  const metrics = (await call(s.base, 'GET', '/metrics')).text;
  t.match(metrics, new RegExp(`^admission_refusals_total ${busy.length}$`, 'm'), 'the refusals are counted');
  t.match(metrics, /^admission_queued_work_ms 0$/m, 'no work left queued once the burst has finished');
  t.equal((await calculate(s.base, s.key, heavy(ds))).status, 200, 'served again once the burst has finished');
});
