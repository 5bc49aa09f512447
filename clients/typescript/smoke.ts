// Exercises the typed client against a running service: node smoke.js BASE_URL API_KEY PRICES_CSV.
// Every call goes through the client: uploads twice with one Idempotency-Key, lists the datasets,
// calculates every method × portfolio_mode, a long/short book with a what-if, a batch, a stress run
// and a backtest, reads and deletes the dataset. Each answer must have its documented status; the
// fields the caller reads from its typed answer must be there; every field sent must be declared in
// the document the types come from (documented-fields.ts). Prints "typescript client: N of N calls
// passed" and exits 1 on any failure.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { riskClient, uploadPrices, type Schemas } from './client.js';
import { DocumentedFields } from './documented-fields.js';

const [base, key, csvPath] = process.argv.slice(2) as [string, string, string];
const client = riskClient(base, key);
const failures: string[] = [];
let passed = 0;
let calls = 0;

const document = await client.GET('/api/v1/openapi.json');
const documented = new DocumentedFields(document.data as ConstructorParameters<typeof DocumentedFields>[0]);

type Answer<T> = { data?: T; error?: unknown; response: Response };
type Operation = [method: 'get' | 'post' | 'delete', path: string];

/** Counts a call when its answer has `status`, every field documented, and the typed reads defined. */
function counted(label: string, [method, path]: Operation, r: Answer<unknown>, status: number, typedReads: () => unknown[]): boolean {
  calls++;
  const body = r.response.ok ? r.data : r.error;
  if (r.response.status !== status) {
    failures.push(`${label}: status ${r.response.status}, expected ${status}: ${JSON.stringify(body).slice(0, 300)}`);
    return false;
  }
  const problems = documented.check(method, path, status, body);
  if (typedReads().some((f) => f === undefined)) problems.push(': a typed field is missing or wrong');
  failures.push(...problems.map((p) => `${label}${p}`));
  if (problems.length === 0) passed++;
  return problems.length === 0;
}

/** A 200: its typed answer, or undefined when the call failed. */
function ok<T>(label: string, operation: Operation, r: Answer<T>, read: (data: T) => unknown[]): T | undefined {
  return counted(label, operation, r, 200, () => read(r.data as T)) ? r.data : undefined;
}

/** A documented refusal: its status, code and field, the request id of the answer in the body. */
function refused(label: string, operation: Operation, r: Answer<unknown>, status: number, code: string, loc?: string[]): void {
  const detail = (r.error as Schemas['Error'] | undefined)?.detail;
  counted(label, operation, r, status, () => [
    detail?.code === code ? code : undefined,
    detail?.request_id === r.response.headers.get('x-request-id') ? detail?.request_id : undefined,
    loc === undefined || JSON.stringify(detail?.errors?.[0]?.loc) === JSON.stringify(loc) ? true : undefined,
  ]);
}

const metricsOf = (m: Schemas['CalculateResponse']['meta']['metrics']) => [
  m.value_at_risk,
  m.expected_shortfall,
  m.value_at_risk_standard_error,
  m.percentiles.p01,
];

const UPLOAD: Operation = ['post', '/api/v1/risk/datasets/upload'];
const CALCULATE: Operation = ['post', '/api/v1/risk/calculate'];
const DATASET: Operation = ['get', '/api/v1/risk/datasets/{id}'];
const idempotencyKey = `smoke-typescript-${randomUUID()}`;
const csv = new Blob([readFileSync(csvPath)]);
const up = ok('upload', UPLOAD, await uploadPrices(client, csv, { idempotencyKey }), (d) => [d.dataset_id, d.dataset.symbols, d.dataset.quality.warnings]);
if (!up) {
  console.log(failures.join('\n'));
  process.exit(1);
}
const ds = up.dataset_id;
ok('upload retried', UPLOAD, await uploadPrices(client, csv, { idempotencyKey }), (d) => [d.dataset_id === ds ? ds : undefined]);
const listing = await client.GET('/api/v1/risk/datasets', { params: { query: { limit: 100 } } });
ok('list datasets', ['get', '/api/v1/risk/datasets'], listing, (d) => [d.datasets.find((s) => s.dataset_id === ds)?.rows, d.next_cursor]);

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
    const label = `${method} ${portfolio_mode}`;
    if (method === 'parametric_normal' && portfolio_mode === 'rebalanced') {
      // Refused as documented: the closed form is of the buy-and-hold book.
      refused(label, CALCULATE, r, 422, 'VALIDATION_ERROR', ['body', 'portfolio_mode']);
      continue;
    }
    const d = ok(label, CALCULATE, r, (d) => [...metricsOf(d.meta.metrics), d.meta.contributions[0]?.component_es, d.meta.estimation.daily_mean.AAPL]);
    if (d && d.meta.metrics.expected_shortfall < d.meta.metrics.value_at_risk) failures.push(`${label}: ES below VaR`);
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
ok('long/short with what-if', CALCULATE, whatIf, (d) => [d.meta.what_if?.incremental_es, d.meta.exposures.short]);
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
ok('batch', ['post', '/api/v1/risk/calculate/batch'], batch, (d) => [d.meta.books[1]?.metrics.expected_shortfall, d.meta.symbols]);
const stress = await client.POST('/api/v1/risk/stress', {
  body: {
    ...book,
    scenarios: [
      { type: 'historical_worst', horizon: 10 },
      { type: 'named', name: 'q4_2018' },
      { type: 'shock', shocks: { AAPL: -0.2 } },
      { type: 'conditional', shocks: { AAPL: -0.1 }, horizon: 5 },
    ],
  },
});
ok('stress', ['post', '/api/v1/risk/stress'], stress, (d) => [d.meta.results[3]?.pnl, d.meta.as_of]);
const backtest = await client.POST('/api/v1/risk/backtest', {
  body: { ...book, method: 'historical', confidence_level: 0.99, time_horizon: 1, backtest: { window: 60, estimation_window: 250 } },
});
ok('backtest', ['post', '/api/v1/risk/backtest'], backtest, (d) => [
  d.meta.backtest.kupiec.p_value,
  d.meta.backtest.traffic_light.zone,
  d.meta.backtest.series[0]?.exception,
]);
const path = { params: { path: { id: ds } } };
ok('get dataset', DATASET, await client.GET('/api/v1/risk/datasets/{id}', path), (d) => [d.dataset.rows]);
ok('delete dataset', ['delete', '/api/v1/risk/datasets/{id}'], await client.DELETE('/api/v1/risk/datasets/{id}', path), (d) => [d.dataset_id]);
refused('get deleted dataset', DATASET, await client.GET('/api/v1/risk/datasets/{id}', path), 404, 'DATASET_NOT_FOUND');

for (const f of failures) console.log('FAIL', f);
console.log(`typescript client: ${documented.fields} fields read`);
console.log(`typescript client: ${passed} of ${calls} calls passed`);
process.exit(failures.length > 0 || passed !== calls ? 1 : 0);
