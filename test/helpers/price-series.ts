// Price series for tests and benchmarks, in one place: calendar dates, Gaussian draws, seeded random
// walks (one series, or a flat [date][asset] array), wide CSVs built from columns, the quality
// report's five-series case, and a wide file read back into the dates where every asked symbol has
// a price.
import { readFileSync } from 'node:fs';
import { mulberry32 } from './mulberry32.js';

const DAY_MS = 86_400_000;

/** The ISO date `day` calendar days after 2020-01-01. */
export const iso = (day: number): string => new Date(Date.UTC(2020, 0, 1) + day * DAY_MS).toISOString().slice(0, 10);

/** One standard normal draw by Box–Muller from two uniforms of `rand` (1 − u keeps the log finite). */
export function gaussian(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** n prices of a random walk from 100 (daily log returns N(0, 1 %²)), reproducible by seed. */
export function walk(n: number, seed: number): number[] {
  const rand = mulberry32(seed);
  const out = [100];
  while (out.length < n) out.push(out[out.length - 1]! * Math.exp(0.01 * gaussian(rand)));
  return out;
}

/**
 * Prices [date][asset] from 100, each asset's daily log return uniform in ±1 %, independent
 * (mulberry32 of `seed`): a flat array as the engine's estimation takes it.
 */
export function uniformWalkPrices(assets: number, dates: number, seed: number): Float64Array {
  const rand = mulberry32(seed);
  const out = new Float64Array(assets * dates).fill(100, 0, assets);
  for (let i = assets; i < out.length; i++) out[i] = out[i - assets]! * Math.exp(0.02 * (rand() - 0.5));
  return out;
}

/** A wide CSV, one row per calendar day from 2020-01-01; null is an empty cell. */
export function wideCsv(columns: Record<string, (number | null)[]>, cell: (price: number) => string = (p) => p.toPrecision(12)): string {
  const names = Object.keys(columns);
  const rows = Math.max(...names.map((s) => columns[s]!.length));
  const lines = [['date', ...names].join(',')];
  for (let i = 0; i < rows; i++) lines.push([iso(i), ...names.map((s) => (columns[s]![i] == null ? '' : cell(columns[s]![i]!)))].join(','));
  return lines.join('\n') + '\n';
}

/**
 * The quality report's main case, 300 calendar days: CLEAN, and one finding each in SPLIT (2:1 on
 * day 150), STALE (days 99..108 equal), GAP (days 200..229 empty) and SPIKE (+25 % on day 180).
 */
export function qualityCase(): Record<string, (number | null)[]> {
  const split = walk(299, 2);
  const stale = walk(291, 3);
  const gap = walk(270, 4);
  const spike = walk(299, 5);
  return {
    CLEAN: walk(300, 1),
    SPLIT: [...split.slice(0, 150), ...split.slice(149).map((p) => p * 0.5)],
    STALE: [...stale.slice(0, 100), ...Array<number>(9).fill(stale[99]!), ...stale.slice(100)],
    GAP: [...gap.slice(0, 200), ...Array<null>(30).fill(null), ...gap.slice(200)],
    SPIKE: [...spike.slice(0, 180), ...spike.slice(179).map((p) => p * 1.25)],
  };
}

/** Prices of `symbols` in the wide CSV `file`, on the dates where all of them have one. */
export function completeRows(file: string, symbols: string[]): { dates: string[]; prices: number[][] } {
  const [head, ...lines] = readFileSync(file, 'utf8').trim().split('\n');
  const idx = symbols.map((s) => head!.split(',').indexOf(s));
  const out = { dates: [] as string[], prices: [] as number[][] };
  for (const line of lines) {
    const c = line.split(',');
    const p = idx.map((i) => (c[i] === '' ? NaN : Number(c[i])));
    if (p.every((x) => !Number.isNaN(x))) {
      out.dates.push(c[0]!);
      out.prices.push(p);
    }
  }
  return out;
}
