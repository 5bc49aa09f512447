// A test service holding one uploaded dataset, and calculate bodies over it: the book the option
// tests share (Monte Carlo normal, seed 5, $1M in USD at 99 % over one day) with a test's fields
// laid on top.
import { type Test } from 'tap';
import { upload } from './http.js';
import { startTestService, type TestService } from './service.js';
import { wideCsv } from './price-series.js';

export type CalculateBody = (over: Record<string, unknown>) => Record<string, unknown>;

/** A service (stopped at the test's end) with `columns` uploaded, and bodies of `simulations` over them. */
export async function serviceWithPrices(t: Test, columns: Record<string, number[]>, simulations: number): Promise<{ s: TestService; body: CalculateBody }> {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const up = await upload(s.base, s.key, wideCsv(columns));
  t.equal(up.status, 200, up.text.slice(0, 300));
  const body: CalculateBody = (over) => ({
    dataset_id: up.body.dataset_id,
    method: 'monte_carlo_normal',
    method_options: { seed: 5 },
    portfolio_value: 1_000_000,
    currency: 'USD',
    confidence_level: 0.99,
    time_horizon: 1,
    simulations,
    ...over,
  });
  return { s, body };
}
