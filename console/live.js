// The console's live panel: the book on GET /api/v1/risk/live (a WebSocket), a price box that sends
// new prices (by hand, or a random tick of ±0.5 %), and VaR and ES as they move. The key goes in the
// socket's first message, never in the URL.
import { riskLine } from './charts.js';

const $ = (id) => document.getElementById(id);
const money = (x) => Math.round(x).toLocaleString('en-US');
const live = { socket: null, points: [], prices: {} };

/** Opens the socket and subscribes `request`; `onError` hears every error message or close. */
export function goLive(key, request, onError) {
  stopLive();
  live.points = [];
  const socket = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/api/v1/risk/live`);
  live.socket = socket;
  socket.addEventListener('open', () => {
    socket.send(JSON.stringify({ type: 'auth', key }));
    socket.send(JSON.stringify({ type: 'subscribe', id: 'console', request }));
  });
  socket.addEventListener('message', (event) => {
    const m = JSON.parse(event.data);
    if (m.type === 'error') return onError(new Error(`${m.detail.code}: ${m.detail.message}`));
    if (m.seq === 0) priceBox(m.meta.exposures.items);
    show(m);
  });
  socket.addEventListener('close', (event) => {
    if (live.socket === socket && event.code !== 1000) onError(new Error(`live socket closed (${event.code} ${event.reason})`));
  });
  $('live').hidden = false;
}

export function stopLive() {
  live.socket?.close(1000);
  live.socket = null;
}

/** The price box: the book's symbols at their current prices. */
function priceBox(items) {
  live.prices = Object.fromEntries(items.map((i) => [i.symbol, i.price]));
  $('live-symbol').replaceChildren(
    ...items.map((i) => {
      const option = document.createElement('option');
      option.textContent = i.symbol;
      return option;
    }),
  );
  $('live-price').value = String(items[0]?.price ?? '');
}

function show(m) {
  const metrics = m.meta.metrics;
  for (const [testid, value] of [
    ['live-var', metrics.value_at_risk],
    ['live-es', metrics.expected_shortfall],
  ]) {
    const el = document.querySelector(`[data-testid="${testid}"]`);
    el.dataset.value = String(value);
    el.textContent = `${money(value)} ${m.meta.currency}`;
  }
  const seq = document.querySelector('[data-testid="live-seq"]');
  seq.dataset.value = String(m.seq);
  seq.textContent = `${m.seq} inputs, ${m.meta.timing_ms.total} ms`;
  live.points.push({ seq: m.seq, var: metrics.value_at_risk, es: metrics.expected_shortfall });
  $('live-chart').replaceChildren(riskLine(live.points));
}

/** Sends the price box's price for its symbol. */
export function sendPrice() {
  const symbol = $('live-symbol').value;
  const price = Number($('live-price').value);
  if (!live.socket || !(price > 0)) throw new Error('Go live first, with a price above 0.');
  live.prices[symbol] = price;
  live.socket.send(JSON.stringify({ type: 'prices', id: 'console', prices: { [symbol]: price } }));
}

/** A random tick of the box's symbol, ±0.5 %, sent at once. */
export function tick() {
  const symbol = $('live-symbol').value;
  const moved = live.prices[symbol] * (1 + (Math.random() - 0.5) / 100);
  $('live-price').value = moved.toFixed(2);
  sendPrice();
}
