// The console page and /docs in headless Chromium (Debian's, driven by playwright-core): the page
// uploads the sample, calculates and backtests through the API, and the figures it shows are the
// API's own; /docs renders the document from assets the service serves itself.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { chromium, type Page } from 'playwright-core';
import { ROOT } from '../../src/paths.js';
import { calcBody, call } from '../helpers/http.js';
import { startTestService, tempDir, WIDE_SAMPLE } from '../helpers/service.js';

const FX_DESK = path.join(ROOT, 'examples/fx-desk.csv');

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!CHROMIUM) throw new Error('Chromium is missing: `npm test` installs it with apt (Debian package chromium); install it to run this test.');

const s = await startTestService({ RATE_LIMIT_CALCULATE_PER_MIN: '1000' });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
t.teardown(async () => {
  await browser.close();
  await s.stop();
});

/** A page that records every request it makes and every failure or CSP violation it meets. */
async function openPage(url: string) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1500 } });
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(url);
  return { page, requests, problems };
}

const testid = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const WEIGHTS = { AAPL: 0.5, MSFT: 0.3, KHC: 0.2 };

t.test('the console uploads, calculates and backtests; it shows the API’s figures', async (t) => {
  const { page, requests, problems } = await openPage(`${s.base}/console`);
  await testid(page, 'key').fill(s.key);
  await testid(page, 'file').setInputFiles(WIDE_SAMPLE);
  await testid(page, 'upload').click();
  await testid(page, 'dataset').getByText(/^ds_/).waitFor({ timeout: 60_000 });
  const datasetId = (await testid(page, 'dataset').textContent())!.split(':')[0]!;
  for (const [symbol, weight] of Object.entries(WEIGHTS)) await testid(page, `amount-${symbol}`).fill(String(weight));
  await testid(page, 'simulations').fill('20000');
  await testid(page, 'calculate').click();
  await page.locator('[data-testid="var"][data-value]').waitFor({ timeout: 60_000 });

  // The same request straight to the API: a seeded calculation gives the same bits.
  const portfolio = Object.entries(WEIGHTS).map(([symbol, weight]) => ({ symbol, weight }));
  const api = await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, json: calcBody(datasetId, { portfolio, method_options: { seed: 42 } }) });
  t.equal(api.status, 200);
  const m = api.body.meta.metrics;
  t.equal(Number(await testid(page, 'var').getAttribute('data-value')), m.value_at_risk, 'VaR on the page = the API’s');
  t.equal(Number(await testid(page, 'es').getAttribute('data-value')), m.expected_shortfall, 'ES on the page = the API’s');
  t.match(await testid(page, 'var').textContent(), `${Math.round(m.value_at_risk).toLocaleString('en-US')} USD ± `, 'shown rounded, with its standard error');
  const bars = await page.locator('[data-testid="histogram"] rect').count();
  t.equal(bars, api.body.meta.distribution.counts.length, 'one bar per histogram bin');
  t.equal(await page.locator('[data-testid="var-line"]').count(), 1, 'VaR marked');
  t.equal(await page.locator('[data-testid="es-line"]').count(), 1, 'ES marked');
  const shown = await page
    .locator('[data-testid="contribution"]')
    .evaluateAll((els) => els.map((e) => [e.getAttribute('data-symbol'), Number(e.getAttribute('data-value'))]));
  t.same(
    shown,
    api.body.meta.contributions.map((c: { symbol: string; component_es: number }) => [c.symbol, c.component_es]),
    'a bar per contribution',
  );
  // A temporary file, so that tests leave the tree as they found it; `npm run screenshot` names the
  // README's picture in CONSOLE_SCREENSHOT to refresh it.
  const named = process.env.CONSOLE_SCREENSHOT;
  const shots = named ? undefined : tempDir('risk-console-');
  if (shots) t.teardown(() => rmSync(shots, { recursive: true, force: true }));
  const shot = named ? path.resolve(ROOT, named) : path.join(shots!, 'console.png');
  mkdirSync(path.dirname(shot), { recursive: true });
  await page.screenshot({ path: shot, fullPage: true });
  const png = readFileSync(shot);
  t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the screenshot is a PNG');
  t.equal(png.toString('latin1', 12, 16), 'IHDR', 'opening with its header chunk');
  t.equal(png.readUInt32BE(16), 1100, 'as wide as the page');
  t.ok(png.readUInt32BE(20) >= 1500, `the whole page, at least the viewport's height (${png.readUInt32BE(20)} px)`);

  await testid(page, 'backtest').click();
  await page.locator('[data-testid="bt-summary"][data-exceptions]').waitFor({ timeout: 120_000 });
  // What the page sends for its model fields as the test left them.
  const pageModel = {
    dataset_id: datasetId,
    method: 'monte_carlo_normal',
    method_options: { seed: 42 },
    currency: 'USD',
    confidence_level: 0.99,
    simulations: 20_000,
  };
  const bt = await call(s.base, 'POST', '/api/v1/risk/backtest', {
    key: s.key,
    json: { ...pageModel, portfolio_value: 1_000_000, portfolio, time_horizon: 1, backtest: { window: 250, estimation_window: 500 } },
  });
  t.equal(bt.status, 200);
  t.equal(Number(await testid(page, 'bt-summary').getAttribute('data-exceptions')), bt.body.meta.backtest.exceptions, 'exceptions on the page = the API’s');
  t.equal(await page.locator('[data-testid="exception"]').count(), bt.body.meta.backtest.exceptions, 'each exception marked on the series');

  // A long/short book of quantities: the page sends positions, not weights.
  await testid(page, 'book-kind').selectOption('quantity');
  const book = { AAPL: 8000, MSFT: -3100 };
  for (const [symbol, quantity] of Object.entries(book)) await testid(page, `amount-${symbol}`).fill(String(quantity));
  const before = await testid(page, 'var').getAttribute('data-value');
  await testid(page, 'calculate').click();
  await page.locator(`[data-testid="var"]:not([data-value="${before}"])`).waitFor({ timeout: 60_000 });
  const apiBook = await call(s.base, 'POST', '/api/v1/risk/calculate', {
    key: s.key,
    json: {
      ...pageModel,
      positions: Object.entries(book).map(([symbol, quantity]) => ({ symbol, quantity })),
      portfolio_mode: 'buy_and_hold',
      time_horizon: 10,
    },
  });
  t.equal(apiBook.status, 200);
  t.equal(Number(await testid(page, 'var').getAttribute('data-value')), apiBook.body.meta.metrics.value_at_risk, 'long/short VaR on the page = the API’s');
  t.equal(await page.locator('[data-testid="contribution"][data-symbol="MSFT"]').count(), 1, 'the short has its contribution bar');

  t.same(problems, [], 'no failed request, script error or CSP violation');
  await testid(page, 'key').fill('prk_live_' + 'W'.repeat(32));
  await testid(page, 'calculate').click();
  await testid(page, 'error').getByText('API_KEY_INVALID').waitFor({ timeout: 30_000 });
  t.match(await testid(page, 'error').textContent(), /401 API_KEY_INVALID: .*\(request req_[0-9A-Za-z]{20}\)/, 'an error with its code and request id');

  t.ok(
    requests.every((u) => u.startsWith(s.base)),
    'every request stays on the service',
  );
  t.same(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]), [0, 0, ''], 'the key is kept nowhere but memory');
  await page.close();
});

t.test('a multi-currency file: the page reports in the chosen currency and shows the FX effect', async (t) => {
  const { page, problems } = await openPage(`${s.base}/console`);
  await testid(page, 'key').fill(s.key);
  await testid(page, 'file').setInputFiles(FX_DESK);
  await testid(page, 'base-currency').fill('USD');
  await testid(page, 'upload').click();
  await testid(page, 'dataset')
    .getByText(/FX USDEUR, USDGBP, USDJPY/)
    .waitFor({ timeout: 60_000 });
  const datasetId = (await testid(page, 'dataset').textContent())!.split(':')[0]!;
  await testid(page, 'book-kind').selectOption('quantity');
  const book = { AAPL: 3000, KO: 4000 };
  for (const [symbol, quantity] of Object.entries(book)) await testid(page, `amount-${symbol}`).fill(String(quantity));
  await testid(page, 'currency').fill('EUR');
  await testid(page, 'simulations').fill('20000');
  await testid(page, 'calculate').click();
  await page.locator('[data-testid="fx-effect"][data-value]').waitFor({ timeout: 60_000 });
  const api = await call(s.base, 'POST', '/api/v1/risk/calculate', {
    key: s.key,
    json: {
      ...calcBody(datasetId, { method_options: { seed: 42 } }),
      portfolio: undefined,
      portfolio_value: undefined,
      currency: 'EUR',
      positions: Object.entries(book).map(([symbol, quantity]) => ({ symbol, quantity })),
    },
  });
  t.equal(api.status, 200, api.text.slice(0, 300));
  const fx = api.body.meta.fx;
  t.equal(Number(await testid(page, 'var').getAttribute('data-value')), api.body.meta.metrics.value_at_risk, 'VaR on the page = the API’s');
  t.match(await testid(page, 'var').textContent(), / EUR ± /, 'in the reporting currency');
  t.equal(Number(await testid(page, 'fx-effect').getAttribute('data-value')), fx.fx_effect_var, 'the FX effect on the page = the API’s');
  t.match(await testid(page, 'fx-effect').textContent(), `without FX ${Math.round(fx.var_without_fx).toLocaleString('en-US')}`);
  t.match(await testid(page, 'fx-effect').textContent(), /ES by currency: USD [\d,]+/);
  t.same(problems, [], 'no failed request, script error or CSP violation');
  await page.close();
});

t.test('the live panel: the book goes live, a price sent moves VaR and ES to the API’s figures', async (t) => {
  const { page, requests, problems } = await openPage(`${s.base}/console`);
  await testid(page, 'key').fill(s.key);
  await testid(page, 'file').setInputFiles(WIDE_SAMPLE);
  await testid(page, 'upload').click();
  await testid(page, 'dataset').getByText(/^ds_/).waitFor({ timeout: 60_000 });
  const datasetId = (await testid(page, 'dataset').textContent())!.split(':')[0]!;
  await testid(page, 'book-kind').selectOption('quantity');
  const book = { AAPL: 8000, MSFT: -3100 };
  for (const [symbol, quantity] of Object.entries(book)) await testid(page, `amount-${symbol}`).fill(String(quantity));
  await testid(page, 'simulations').fill('20000');
  await testid(page, 'go-live').click();
  await page.locator('[data-testid="live-seq"][data-value="0"]').waitFor({ timeout: 60_000 });

  // The live book is calculate's with the exposures as market values (api.md, live risk).
  const model = {
    dataset_id: datasetId,
    method: 'monte_carlo_normal',
    method_options: { seed: 42 },
    currency: 'USD',
    confidence_level: 0.99,
    portfolio_mode: 'buy_and_hold',
    time_horizon: 10,
    simulations: 20_000,
  };
  const priced = await call(s.base, 'POST', '/api/v1/risk/calculate', {
    key: s.key,
    json: { ...model, positions: Object.entries(book).map(([symbol, quantity]) => ({ symbol, quantity })) },
  });
  const price = Object.fromEntries((priced.body.meta.exposures.items as { symbol: string; price: number }[]).map((i) => [i.symbol, i.price]));
  const apiVar = async (prices: Record<string, number>) => {
    const positions = Object.entries(book).map(([symbol, quantity]) => ({ symbol, market_value: quantity * prices[symbol]! }));
    const r = await call(s.base, 'POST', '/api/v1/risk/calculate', { key: s.key, json: { ...model, positions } });
    return r.body.meta.metrics as { value_at_risk: number; expected_shortfall: number };
  };
  let m = await apiVar(price);
  t.equal(Number(await testid(page, 'live-var').getAttribute('data-value')), m.value_at_risk, 'live VaR = the API’s');
  t.equal(Number(await testid(page, 'live-es').getAttribute('data-value')), m.expected_shortfall, 'live ES = the API’s');
  t.equal(await testid(page, 'live-symbol').inputValue(), 'AAPL', 'the price box shows the book’s first symbol');

  await testid(page, 'live-price').fill('250');
  await testid(page, 'live-send').click();
  await page.locator('[data-testid="live-seq"][data-value="1"]').waitFor({ timeout: 60_000 });
  m = await apiVar({ ...price, AAPL: 250 });
  t.equal(Number(await testid(page, 'live-var').getAttribute('data-value')), m.value_at_risk, 'after a price: live VaR = the API’s');
  t.equal(Number(await testid(page, 'live-es').getAttribute('data-value')), m.expected_shortfall, 'after a price: live ES = the API’s');

  await testid(page, 'live-tick').click();
  await page.locator('[data-testid="live-seq"][data-value="2"]').waitFor({ timeout: 60_000 });
  const ticked = Number(await testid(page, 'live-price').inputValue());
  t.ok(Math.abs(ticked / 250 - 1) <= 0.005, `the tick moved the price box within 0.5 % (${ticked})`);
  t.equal(await page.locator('[data-testid="var-series"]').getAttribute('data-points'), '3', 'the VaR line has a point per update');
  t.equal(await page.locator('[data-testid="es-series"]').count(), 1, 'and the ES line');
  await testid(page, 'live-stop').click();
  t.same(problems, [], 'no failed request, script error or CSP violation');
  t.ok(
    requests.every((u) => u.startsWith(s.base) || u.startsWith(s.base.replace('http', 'ws'))),
    'every request stays on the service',
  );
  await page.close();
});

t.test('/docs renders the document with assets the service serves itself', async (t) => {
  const { page, requests, problems } = await openPage(`${s.base}/docs`);
  await page.getByText('VaR, ES and contributions of one book').first().waitFor({ timeout: 60_000 });
  t.ok(await page.getByText('Upload daily prices as CSV').first().isVisible(), 'the operations are listed');
  t.ok(
    requests.some((u) => u.endsWith('/api/v1/openapi.json')),
    'from the live document',
  );
  t.ok(
    requests.every((u) => u.startsWith(s.base)),
    'no request leaves the service (no CDN)',
  );
  t.same(problems, [], 'no failed request, script error or CSP violation');
  const asset = await call(s.base, 'GET', '/docs/swagger-ui.css');
  t.equal(asset.status, 200);
  t.match(asset.headers.get('content-security-policy'), "default-src 'self'");
  t.equal((await call(s.base, 'GET', '/docs/../package.json')).status, 404, 'only the listed assets');
  t.equal((await call(s.base, 'GET', '/console/nothing.js')).status, 404);
  await page.close();
});
