// Exercises the typed client against a running service: node smoke.js BASE_URL API_KEY PRICES_CSV.
// Every call goes through the client; each 200 is checked for the fields its type promises, every
// number finite; each documented refusal for its status, code and request id. Prints "typescript client: N of N calls passed" and exits 1 on any failure.
import { readFileSync } from 'node:fs';
import { riskClient, uploadPrices, type Schemas } from './client.js';

const [base, key, csvPath] = process.argv.slice(2) as [string, string, string];
const client = riskClient(base, key);
const failures: string[] = [];
let passed = 0;
let calls = 0;

function finite(value: unknown, where: string): void {
  if (typeof value === 'number' && !Number.isFinite(value)) failures.push(`${where}: ${value}`);
  else if (Array.isArray(value)) value.forEach((v, i) => finite(v, `${where}[${i}]`));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) finite(v, `${where}.${k}`);
}

/** Counts a 200: the fields the caller reads from its typed answer are there, every number finite. */
function ok<T>(label: string, r: { data?: T; error?: unknown; response: Response }, read: (data: T) => unknown[]): T | undefined {
  calls++;
  if (r.response.status !== 200 || r.data === undefined) {
    failures.push(`${label}: status ${r.response.status}: ${JSON.stringify(r.error).slice(0, 300)}`);
    return undefined;
  }
  if (read(r.data).some((f) => f === undefined)) failures.push(`${label}: a typed field is missing`);
  finite(r.data, label);
  passed++;
  return r.data;
}

/** Counts a documented refusal: its status and code, with the request id in the body. */
function refused(label: string, r: { error?: unknown; response: Response }, status: number, code: string): void {
  calls++;
  const detail = (r.error as Schemas['Error'] | undefined)?.detail;
  if (r.response.status !== status || detail?.code !== code || detail.request_id !== r.response.headers.get('x-request-id')) {
    failures.push(`${label}: expected ${status} ${code}, got ${r.response.status} ${JSON.stringify(r.error).slice(0, 300)}`);
    return;
  }
  passed++;
}

const metricsOf = (m: Schemas['CalculateResponse']['meta']['metrics']) => [
  m.value_at_risk,
  m.expected_shortfall,
  m.value_at_risk_standard_error,
  m.percentiles.p01,
];

const up = ok('upload', await uploadPrices(client, new Blob([readFileSync(csvPath)])), (d) => [d.dataset_id, d.dataset.symbols, d.dataset.quality.warnings]);
const ds = up!.dataset_id;
const portfolio = [
  { symbol: 'AAPL', weight: 0.5 },
  { symbol: 'MSFT', weight: 0.3 },
  { symbol: 'KHC', weight: 0.2 },
];
const methods: Schemas['CalculateRequest']['method'][] = ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal'];
for (const method of methods) {
  for (const portfolio_mode of ['buy_and_hold', 'rebalanced'] as const) {
    const body: Schemas['CalculateRequest'] = {
      dataset_id: ds,
      method,
      method_options: { seed: 7 },
      portfolio_value: 1_000_000,
      currency: 'USD',
      portfolio,
      portfolio_mode,
      confidence_level: 0.99,
      time_horizon: 10,
      simulations: 5_000,
    };
    const r = await client.POST('/api/v1/risk/calculate', { body });
    if (method === 'parametric_normal' && portfolio_mode === 'rebalanced') {
      // Refused as documented: the closed form is of the buy-and-hold book.
      refused(`${method} ${portfolio_mode}`, r, 422, 'VALIDATION_ERROR');
      continue;
    }
    ok(`${method} ${portfolio_mode}`, r, (d) => [...metricsOf(d.meta.metrics), d.meta.contributions[0]?.component_es, d.meta.estimation.daily_mean.AAPL]);
  }
}
const positions = [
  { symbol: 'AAPL', quantity: 8000 },
  { symbol: 'MSFT', market_value: -300_000 },
  { symbol: 'KHC', market_value: 200_000 },
];
const book = { dataset_id: ds, currency: 'USD', positions } as const;
const whatIf = await client.POST('/api/v1/risk/calculate', {
  body: {
    ...book,
    method: 'monte_carlo_normal',
    method_options: { seed: 7 },
    what_if: { trades: [{ symbol: 'AAPL', quantity: -2000 }] },
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 10_000,
  },
});
ok('long/short with what-if', whatIf, (d) => [d.meta.what_if?.incremental_es, d.meta.exposures.short]);
const batch = await client.POST('/api/v1/risk/calculate/batch', {
  body: {
    dataset_id: ds,
    method: 'historical',
    currency: 'USD',
    portfolio_value: 1_000_000,
    books: [
      { id: 'a', positions },
      { id: 'b', portfolio },
    ],
    confidence_level: 0.99,
    time_horizon: 1,
  },
});
ok('batch', batch, (d) => [d.meta.books[1]?.metrics.expected_shortfall, d.meta.symbols]);
const stress = await client.POST('/api/v1/risk/stress', {
  body: {
    ...book,
    scenarios: [
      { type: 'historical_worst', horizon: 10 },
      { type: 'named', name: 'q4_2018' },
      { type: 'shock', shocks: { AAPL: -0.2 } },
    ],
  },
});
ok('stress', stress, (d) => [d.meta.results[0]?.pnl, d.meta.as_of]);
const backtest = await client.POST('/api/v1/risk/backtest', {
  body: { ...book, method: 'historical', confidence_level: 0.99, time_horizon: 1, backtest: { window: 60, estimation_window: 250 } },
});
ok('backtest', backtest, (d) => [d.meta.backtest.kupiec.p_value, d.meta.backtest.traffic_light.zone, d.meta.backtest.series[0]?.exception]);
const path = { params: { path: { id: ds } } };
ok('get dataset', await client.GET('/api/v1/risk/datasets/{id}', path), (d) => [d.dataset.rows]);
ok('delete dataset', await client.DELETE('/api/v1/risk/datasets/{id}', path), (d) => [d.dataset_id]);
refused('get deleted dataset', await client.GET('/api/v1/risk/datasets/{id}', path), 404, 'DATASET_NOT_FOUND');

for (const f of failures) console.log('FAIL', f);
console.log(`typescript client: ${passed} of ${calls} calls passed`);
process.exit(failures.length > 0 || passed !== calls ? 1 : 0);
