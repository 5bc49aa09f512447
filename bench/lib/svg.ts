export interface Series {
  name: string;
  points: [number, number][];
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd'];

/** A small line chart as SVG text (log axes optional). */
export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[], logX = false, logY = false): string {
  const W = 560,
    H = 340,
    L = 70,
    R = 140,
    T = 36,
    B = 50;
  const fx = (x: number) => (logX ? Math.log10(x) : x);
  const fy = (y: number) => (logY ? Math.log10(Math.max(y, 1e-9)) : y);
  const xs = series.flatMap((s) => s.points.map((p) => fx(p[0])));
  const ys = series.flatMap((s) => s.points.map((p) => fy(p[1])));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys, logY ? Infinity : 0), Math.max(...ys)];
  const px = (x: number) => L + ((fx(x) - x0) / (x1 - x0 || 1)) * (W - L - R);
  const py = (y: number) => H - B - ((fy(y) - y0) / (y1 - y0 || 1)) * (H - T - B);
  const fmt = (v: number) => (Math.abs(v) >= 1000 ? v.toExponential(0) : v.toPrecision(3));
  const ticks = (lo: number, hi: number, log: boolean) => Array.from({ length: 5 }, (_, i) => lo + ((hi - lo) * i) / 4).map((v) => (log ? 10 ** v : v));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="13">${title}</text>`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
    `<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">${xLabel}</text>`,
    `<text x="14" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(T + H - B) / 2})">${yLabel}</text>`,
    ...ticks(x0, x1, logX).map((v) => `<text x="${px(v)}" y="${H - B + 14}" text-anchor="middle">${fmt(v)}</text>`),
    ...ticks(y0, y1, logY).map((v) => `<text x="${L - 6}" y="${py(v) + 4}" text-anchor="end">${fmt(v)}</text>`),
  ];
  series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    parts.push(
      `<polyline fill="none" stroke="${c}" stroke-width="2" points="${s.points.map((p) => `${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ')}"/>`,
    );
    s.points.forEach((p) => parts.push(`<circle cx="${px(p[0]).toFixed(1)}" cy="${py(p[1]).toFixed(1)}" r="2.5" fill="${c}"/>`));
    parts.push(`<text x="${W - R + 10}" y="${T + 14 + i * 16}" fill="${c}">${s.name}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
