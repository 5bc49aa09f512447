// The console: upload prices, build a book, calculate and backtest through the service's own API.
// The API key lives in this module's memory only (never storage or cookies).
import { backtestSeries, contributions, histogram } from './charts.js';
import { goLive, sendPrice, stopLive, tick } from './live.js';

const $ = (id) => document.getElementById(id);
const state = { dataset: null, symbols: [] };
const money = (x) => Math.round(x).toLocaleString('en-US');

/** Calls the API; an error answer is thrown with its code, message and request id. */
async function api(path, init) {
  const key = $('key').value.trim();
  const res = await fetch(path, { ...init, headers: { ...(init.headers ?? {}), 'X-API-Key': key } });
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    const d = body?.detail ?? {};
    const err = new Error(`${res.status} ${d.code ?? 'ERROR'}: ${d.message ?? res.statusText}`);
    err.requestId = d.request_id ?? res.headers.get('x-request-id');
    err.issues = d.errors ?? [];
    throw err;
  }
  return body;
}

function showError(e) {
  const where = e.issues?.length ? ` — ${e.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}` : '';
  $('error').textContent = `${e.message}${where}${e.requestId ? ` (request ${e.requestId})` : ''}`;
  $('error').hidden = false;
}

/** Runs one action with its button disabled and any error shown. */
function action(button, run) {
  $(button).addEventListener('click', async () => {
    $(button).disabled = true;
    $('error').hidden = true;
    try {
      await run();
    } catch (e) {
      showError(e);
    } finally {
      $(button).disabled = false;
    }
  });
}

function renderBook() {
  const kind = $('book-kind').value;
  $('amount-head').textContent = kind === 'weights' ? 'weight' : kind === 'quantity' ? 'quantity' : 'market value';
  $('value-label').hidden = kind !== 'weights';
  const body = $('book').querySelector('tbody');
  body.replaceChildren(
    ...state.symbols.map((symbol) => {
      const tr = document.createElement('tr');
      const name = document.createElement('td');
      name.textContent = symbol;
      const cell = document.createElement('td');
      const input = document.createElement('input');
      input.type = 'number';
      input.step = 'any';
      input.dataset.symbol = symbol;
      input.dataset.testid = `amount-${symbol}`;
      input.setAttribute('aria-label', `${symbol} amount`);
      cell.appendChild(input);
      tr.append(name, cell);
      return tr;
    }),
  );
}

/** The request fields of the book and model as the form states them. */
function bookAndModel() {
  const kind = $('book-kind').value;
  const items = [...$('book').querySelectorAll('input')].filter((i) => i.value !== '' && Number(i.value) !== 0);
  const book =
    kind === 'weights'
      ? { portfolio_value: Number($('portfolio-value').value), portfolio: items.map((i) => ({ symbol: i.dataset.symbol, weight: Number(i.value) })) }
      : { positions: items.map((i) => ({ symbol: i.dataset.symbol, [kind]: Number(i.value) })) };
  const method = $('method').value;
  return {
    dataset_id: state.dataset,
    method,
    method_options: method.startsWith('monte_carlo') ? { seed: Number($('seed').value) } : {},
    currency: $('currency').value.trim().toUpperCase(),
    ...book,
    confidence_level: Number($('confidence').value),
    ...(method.startsWith('monte_carlo') ? { simulations: Number($('simulations').value) } : {}),
  };
}

action('upload', async () => {
  const file = $('file').files[0];
  if (!file) throw new Error('Choose a CSV file first.');
  const form = new FormData();
  form.set('file', file, file.name);
  const base = $('base-currency').value.trim().toUpperCase();
  if (base) form.set('base_currency', base);
  const r = await api('/api/v1/risk/datasets/upload', { method: 'POST', body: form });
  state.dataset = r.dataset_id;
  state.symbols = r.dataset.symbols;
  $('dataset').textContent =
    `${r.dataset_id}: ${r.dataset.symbols.length} symbols, ${r.dataset.rows} dates (${r.dataset.first_date} to ${r.dataset.last_date}); ${r.dataset.quality.warnings.length} quality warnings` +
    (r.dataset.fx_pairs ? `; base currency ${r.dataset.base_currency}, FX ${r.dataset.fx_pairs.join(', ')}` : '');
  renderBook();
});

$('book-kind').addEventListener('change', renderBook);

action('calculate', async () => {
  const body = { ...bookAndModel(), portfolio_mode: $('mode').value, time_horizon: Number($('horizon').value) };
  const r = await api('/api/v1/risk/calculate', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const m = r.meta.metrics;
  const figure = (testid, value, se) => {
    const el = document.querySelector(`[data-testid="${testid}"]`);
    el.dataset.value = String(value);
    el.textContent = `${money(value)} ${r.meta.currency}${se ? ` ± ${money(se)}` : ''}`;
  };
  figure('var', m.value_at_risk, m.value_at_risk_standard_error);
  figure('es', m.expected_shortfall, m.expected_shortfall_standard_error);
  figure('expected-pnl', m.expected_pnl, 0);
  // Multi-currency datasets: how much of the risk is FX (the same scenarios with FX returns at 0).
  const fx = r.meta.fx;
  document.querySelectorAll('[data-fx]').forEach((el) => (el.hidden = !fx));
  if (fx) {
    const el = document.querySelector('[data-testid="fx-effect"]');
    el.dataset.value = String(fx.fx_effect_var);
    const sign = fx.fx_effect_var >= 0 ? '+' : '−';
    el.textContent = `VaR ${sign}${money(Math.abs(fx.fx_effect_var))} ${r.meta.currency} ± ${money(fx.fx_effect_var_standard_error)} (without FX ${money(fx.var_without_fx)}); ES by currency: ${r.meta.currency_breakdown.map((c) => `${c.currency} ${money(c.component_es)}`).join(', ')}`;
  }
  document.querySelector('[data-testid="calculation"]').textContent =
    `${r.meta.method}, ${r.meta.portfolio_mode}, ${r.meta.confidence_level * 100} % over ${r.meta.time_horizon} days, ` +
    `${r.meta.simulations ?? 'closed form'} scenarios, ${r.meta.engine.build}, ${r.meta.timing_ms.total} ms`;
  $('histogram').replaceChildren(histogram(r.meta.distribution, m));
  $('contributions').replaceChildren(contributions(r.meta.contributions));
  $('result').hidden = false;
});

action('backtest', async () => {
  const body = { ...bookAndModel(), time_horizon: 1, backtest: { window: 250, estimation_window: 500 } };
  const r = await api('/api/v1/risk/backtest', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const b = r.meta.backtest;
  const summary = document.querySelector('[data-testid="bt-summary"]');
  summary.dataset.exceptions = String(b.exceptions);
  summary.textContent =
    `${b.exceptions} exceptions in ${b.observations} days (${b.expected_exceptions.toFixed(1)} expected); ` +
    `Kupiec p ${b.kupiec.p_value.toFixed(3)}; traffic light ${b.traffic_light.zone}`;
  $('bt-chart').replaceChildren(backtestSeries(b.series));
  $('backtest-result').hidden = false;
});

action('go-live', async () => {
  const request = { ...bookAndModel(), portfolio_mode: $('mode').value, time_horizon: Number($('horizon').value) };
  goLive($('key').value.trim(), request, showError);
});
action('live-send', async () => sendPrice());
action('live-tick', async () => tick());
action('live-stop', async () => stopLive());
