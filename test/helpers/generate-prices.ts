// Generates the 461-symbol wide price file of workload W5 (and W2's 20 assets): a three-factor
// random walk with a fixed seed, so every run benchmarks the same data. Writes
// bench/data/wide-461.csv when missing. Run: node dist/test/helpers/generate-prices.js
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';
import { mulberry32 as prng } from './mulberry32.js';
import { gaussian } from './price-series.js';

export const WIDE_461 = path.join(ROOT, 'bench/data/wide-461.csv');
const SYMBOLS = 461;
const DATES = 1260;
const SEED = 20240611;

export function generateWide461(): string {
  if (existsSync(WIDE_461)) return WIDE_461;
  const rand = prng(SEED);
  const normal = () => gaussian(rand);
  const loadings = Array.from({ length: SYMBOLS }, () => [0.5 + rand(), rand() - 0.5, rand() - 0.5]);
  const idio = Array.from({ length: SYMBOLS }, () => 0.008 + 0.012 * rand());
  const prices = Array.from({ length: SYMBOLS }, () => 20 + 200 * rand());
  const lines = [['date', ...Array.from({ length: SYMBOLS }, (_, i) => `S${String(i).padStart(3, '0')}`)].join(',')];
  const day = new Date(Date.UTC(2015, 0, 2));
  for (let d = 0; d < DATES; d++) {
    lines.push([day.toISOString().slice(0, 10), ...prices.map((p) => p.toFixed(4))].join(','));
    const f = [normal() * 0.01, normal() * 0.006, normal() * 0.004];
    for (let i = 0; i < SYMBOLS; i++) {
      const l = loadings[i]!;
      const r = 0.0003 + l[0]! * f[0]! + l[1]! * f[1]! + l[2]! * f[2]! + idio[i]! * normal();
      prices[i] = prices[i]! * Math.exp(r);
    }
    day.setUTCDate(day.getUTCDate() + (day.getUTCDay() === 5 ? 3 : 1));
  }
  mkdirSync(path.dirname(WIDE_461), { recursive: true });
  writeFileSync(WIDE_461, lines.join('\n') + '\n');
  return WIDE_461;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(generateWide461());
