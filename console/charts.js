// SVG charts of the console, drawn from the API's answers: no chart library, nothing fetched.
const NS = 'http://www.w3.org/2000/svg';

function svg(width, height, label) {
  const el = document.createElementNS(NS, 'svg');
  el.setAttribute('viewBox', `0 0 ${width} ${height}`);
  el.setAttribute('width', String(width));
  el.setAttribute('role', 'img');
  el.setAttribute('aria-label', label);
  return el;
}

function add(parent, tag, attrs, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  parent.appendChild(el);
  return el;
}

const money = (x) => Math.round(x).toLocaleString('en-US');

/** The P&L histogram with VaR and ES marked where the losses −VaR and −ES fall. */
export function histogram(distribution, metrics) {
  const W = 880,
    H = 260,
    L = 50,
    B = 30;
  const edges = distribution.bin_edges;
  const counts = distribution.counts;
  const lo = edges[0],
    hi = edges[edges.length - 1];
  const x = (v) => L + ((v - lo) / (hi - lo || 1)) * (W - L - 10);
  const top = Math.max(...counts, 1);
  const el = svg(W, H, 'P&L histogram with VaR and ES');
  counts.forEach((c, i) => {
    const h = (c / top) * (H - B - 20);
    add(el, 'rect', { class: 'bar', x: x(edges[i]), y: H - B - h, width: Math.max(1, x(edges[i + 1]) - x(edges[i]) - 1), height: h, 'data-count': c });
  });
  add(el, 'line', { class: 'axis', x1: L, y1: H - B, x2: W - 10, y2: H - B });
  for (const [name, value, cls] of [
    ['VaR', metrics.value_at_risk, 'var-line'],
    ['ES', metrics.expected_shortfall, 'es-line'],
  ]) {
    const at = x(-value);
    add(el, 'line', { class: cls, 'data-testid': cls, x1: at, y1: 14, x2: at, y2: H - B });
    // VaR's label to the right of its line, ES's (the larger loss, further left) to the left of its own.
    const right = cls === 'var-line';
    add(el, 'text', { class: 'label', x: right ? at + 3 : at - 3, y: 12, 'text-anchor': right ? 'start' : 'end' }, `${name} ${money(value)}`);
  }
  add(el, 'text', { class: 'label', x: L, y: H - 8 }, money(lo));
  add(el, 'text', { class: 'label', x: W - 10, y: H - 8, 'text-anchor': 'end' }, money(hi));
  return el;
}

/** Component ES of each position as horizontal bars (negative ones hedge). */
export function contributions(items) {
  const W = 880,
    row = 22,
    L = 90;
  const el = svg(W, row * items.length + 10, 'Contributions to ES');
  const span = Math.max(...items.map((c) => Math.abs(c.component_es)), 1);
  const zero = L + (W - L - 120) / 2;
  const scale = (W - L - 120) / 2 / span;
  items.forEach((c, i) => {
    const y = 5 + i * row;
    const w = Math.abs(c.component_es) * scale;
    add(el, 'text', { class: 'label', x: L - 6, y: y + 14, 'text-anchor': 'end' }, c.symbol);
    add(el, 'rect', {
      class: 'bar',
      'data-testid': 'contribution',
      'data-symbol': c.symbol,
      'data-value': c.component_es,
      x: c.component_es >= 0 ? zero : zero - w,
      y,
      width: Math.max(1, w),
      height: row - 6,
    });
    add(el, 'text', { class: 'label', x: W - 110, y: y + 14 }, money(c.component_es));
  });
  add(el, 'line', { class: 'axis', x1: zero, y1: 0, x2: zero, y2: row * items.length + 10 });
  return el;
}

/** Realised P&L against the VaR forecast (drawn at −VaR), exceptions marked. */
export function backtestSeries(series) {
  const W = 880,
    H = 260,
    L = 60,
    B = 20;
  const values = series.flatMap((d) => [d.pnl, -d.var]);
  const lo = Math.min(...values),
    hi = Math.max(...values);
  const x = (i) => L + (i / Math.max(1, series.length - 1)) * (W - L - 10);
  const y = (v) => 10 + ((hi - v) / (hi - lo || 1)) * (H - B - 20);
  const el = svg(W, H, 'Backtest: P&L against the VaR forecast');
  add(el, 'polyline', { class: 'pnl', points: series.map((d, i) => `${x(i).toFixed(1)},${y(d.pnl).toFixed(1)}`).join(' ') });
  add(el, 'polyline', { class: 'forecast', points: series.map((d, i) => `${x(i).toFixed(1)},${y(-d.var).toFixed(1)}`).join(' ') });
  series.forEach((d, i) => {
    if (d.exception) add(el, 'circle', { class: 'exception', 'data-testid': 'exception', 'data-date': d.date, cx: x(i), cy: y(d.pnl), r: 4 });
  });
  add(el, 'text', { class: 'label', x: L, y: H - 4 }, series[0]?.date ?? '');
  add(el, 'text', { class: 'label', x: W - 10, y: H - 4, 'text-anchor': 'end' }, series[series.length - 1]?.date ?? '');
  return el;
}

/** Live VaR and ES, one point per risk message (x: its seq), redrawn whole on each. */
export function riskLine(points) {
  const W = 880,
    H = 200,
    L = 70,
    B = 20;
  const values = points.flatMap((p) => [p.var, p.es]);
  const lo = Math.min(...values),
    hi = Math.max(...values);
  const first = points[0]?.seq ?? 0,
    last = points[points.length - 1]?.seq ?? 0;
  const x = (seq) => L + ((seq - first) / Math.max(1, last - first)) * (W - L - 10);
  const y = (v) => 10 + ((hi - v) / (hi - lo || 1)) * (H - B - 20);
  const el = svg(W, H, 'Live VaR and ES by update');
  for (const [key, cls] of [
    ['var', 'var-series'],
    ['es', 'es-series'],
  ]) {
    add(el, 'polyline', {
      class: cls,
      'data-testid': cls,
      'data-points': points.length,
      points: points.map((p) => `${x(p.seq).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' '),
    });
  }
  add(el, 'text', { class: 'label', x: L - 6, y: 14, 'text-anchor': 'end' }, money(hi));
  add(el, 'text', { class: 'label', x: L - 6, y: H - B, 'text-anchor': 'end' }, money(lo));
  add(el, 'text', { class: 'label', x: W - 10, y: H - 4, 'text-anchor': 'end' }, `seq ${last}`);
  return el;
}
