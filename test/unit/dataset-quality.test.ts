// The dataset quality report (api.md §11) as a pure function: exact findings on synthetic series
// (a split, a stale run, a gap, an outlier, and nothing else), the edges of every definition, the
// caps a hostile file meets, and numbers that are always finite.
import t from 'tap';
import { FormatRegistry } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { DatasetQualitySchema, SymbolQualitySchema } from '../../src/contract/dataset-schemas.js';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { type Dataset } from '../../src/datasets/dataset.js';
import { MAD_TO_SIGMA, MIN_RETURNS_FOR_OUTLIERS, OUTLIER_SIGMAS, computeQuality, datasetQuality } from '../../src/datasets/quality.js';
import { middle } from '../../src/datasets/middle-pair.js';
import { MAX_FINDINGS_LISTED, MAX_FINDINGS_PER_LIST, MAX_WARNINGS } from '../../src/datasets/quality-report.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { iso, qualityCase as mainCase, walk, wideCsv } from '../helpers/price-series.js';

async function* once(text: string): AsyncGenerator<Buffer> {
  yield Buffer.from(text);
}
const parse = (text: string) => readCsv(once(text), { maxSymbols: 5000 });

const noFindings = { stale_runs: [], suspected_splits: [], outliers: [], counts: { stale_runs: 0, suspected_splits: 0, outliers: 0 } };

/** Every number anywhere in v. */
function numbers(v: unknown): number[] {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v.flatMap(numbers);
  if (v && typeof v === 'object') return Object.values(v).flatMap(numbers);
  return [];
}

if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (v) => /^\d{4}-\d{2}-\d{2}$/.test(v));
const valid = TypeCompiler.Compile(DatasetQualitySchema);

t.test('an injected split, stale run, gap and outlier: exactly those findings and nothing else', async (t) => {
  const d = await parse(wideCsv(mainCase()));
  const q = computeQuality(d);
  t.ok(valid.Check(q), 'matches the response schema');
  const [clean, split, stale, gap, spike] = q.symbols;
  t.same(
    clean,
    { symbol: 'CLEAN', first_date: iso(0), last_date: iso(299), observations: 300, missing: 0, longest_gap_days: 0, ...noFindings },
    'a clean walk: nothing',
  );

  t.equal(split!.suspected_splits.length, 1);
  t.equal(split!.suspected_splits[0]!.date, iso(150));
  t.ok(Math.abs(split!.suspected_splits[0]!.ratio - 0.5) < 1e-9, `ratio ${split!.suspected_splits[0]!.ratio}`);
  t.same({ ...split, suspected_splits: [] }, { ...split, ...noFindings, counts: { ...noFindings.counts, suspected_splits: 1 } }, 'the split is no outlier');

  t.same(stale!.stale_runs, [{ start: iso(99), end: iso(108), length: 10 }]);
  t.same(stale!.counts, { stale_runs: 1, suspected_splits: 0, outliers: 0 });
  t.same([stale!.suspected_splits, stale!.outliers], [[], []]);

  t.match(gap, { observations: 270, missing: 30, longest_gap_days: 30, first_date: iso(0), last_date: iso(299) });
  t.same([gap!.stale_runs, gap!.suspected_splits, gap!.outliers], [[], [], []], 'a gap alone');

  t.equal(spike!.outliers.length, 1);
  t.equal(spike!.outliers[0]!.date, iso(180));
  t.ok(Math.abs(spike!.outliers[0]!.log_return - Math.log(1.25)) < 1e-9, 'its log return');
  t.ok(spike!.outliers[0]!.robust_z > OUTLIER_SIGMAS, `robust z ${spike!.outliers[0]!.robust_z}`);
  t.same([spike!.stale_runs, spike!.suspected_splits, spike!.counts.outliers], [[], [], 1]);

  for (const s of q.symbols.filter((s) => s.symbol !== 'GAP')) t.match(s, { missing: 0, longest_gap_days: 0 }, `${s.symbol}: no gap`);
  t.equal(q.warnings.length, 4, 'one warning per finding');
  t.equal(q.warnings[0], `SPLIT: possible 2:1 split on ${iso(150)} (price ratio 0.5000).`);
  t.match(q.warnings[1], new RegExp(`^SPIKE: outlier return on ${iso(180)} \\(log return 0\\.2231, \\d+\\.\\d robust σ from the median\\)\\.$`));
  t.equal(q.warnings[2], `STALE: price unchanged for 10 consecutive prices from ${iso(99)} to ${iso(108)} (stale run).`);
  t.equal(
    q.warnings[3],
    `GAP: no price for 30 calendar days between ${iso(199)} and ${iso(230)} (30 of the file’s dates in between have none; 30 missing in all).`,
  );
  t.equal(q.truncated, false);
  t.same(computeQuality(d), q, 'deterministic');
});

t.test('a clean random-walk file: no findings at all', async (t) => {
  const columns = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`S${i}`, walk(500, 100 + i)]));
  const q = computeQuality(await parse(wideCsv(columns)));
  t.same(q.warnings, []);
  for (const s of q.symbols)
    t.same({ ...s, symbol: '' }, { symbol: '', first_date: iso(0), last_date: iso(499), observations: 500, missing: 0, longest_gap_days: 0, ...noFindings });
});

t.test('edges: one price, none, constant prices, a 1/3 and a 1:10 split, ratios 1.9 % and 2.1 % from 1/2', async (t) => {
  const w = (seed: number, at: number, ratio: number) => {
    const base = walk(59, seed);
    return [...base.slice(0, at), ...base.slice(at - 1).map((p) => p * ratio)]; // P(at) = P(at − 1) × ratio
  };
  const one: (number | null)[] = Array<null>(60).fill(null);
  one[7] = 42;
  const columns: Record<string, (number | null)[]> = {
    ONE: one,
    NONE: Array<null>(60).fill(null),
    FLAT: Array<number>(60).fill(10),
    STEP: [...Array<number>(30).fill(10), ...Array<number>(30).fill(13)],
    THIRD: w(11, 30, 1 / 3),
    TENFOLD: w(12, 30, 10),
    NEAR_HI: w(13, 30, 0.5 * 1.019),
    FAR_HI: w(14, 30, 0.5 * 1.021),
    NEAR_LO: w(15, 30, 0.5 * 0.981),
    FAR_LO: w(16, 30, 0.5 * 0.979),
  };
  const q = computeQuality(await parse(wideCsv(columns)));
  t.ok(valid.Check(q), 'matches the response schema');
  const by = Object.fromEntries(q.symbols.map((s) => [s.symbol, s]));
  t.same(by.ONE, { symbol: 'ONE', first_date: iso(7), last_date: iso(7), observations: 1, missing: 0, longest_gap_days: 0, ...noFindings }, 'one price');
  t.same(by.NONE, { symbol: 'NONE', first_date: null, last_date: null, observations: 0, missing: 0, longest_gap_days: 0, ...noFindings }, 'no price');
  t.same(by.FLAT!.stale_runs, [{ start: iso(0), end: iso(59), length: 60 }], 'constant: one stale run over everything');
  t.same([by.FLAT!.outliers, by.FLAT!.suspected_splits], [[], []], 'constant: MAD 0, no outliers');
  t.same(by.STEP!.stale_runs, [
    { start: iso(0), end: iso(29), length: 30 },
    { start: iso(30), end: iso(59), length: 30 },
  ]);
  t.same(by.STEP!.outliers, [], 'a 30 % jump among equal prices: MAD = 0, so no outliers (no scale to measure by)');
  const splitOf = (s: string) => by[s]!.suspected_splits.map((x) => [x.date, Math.round(x.ratio * 1e6) / 1e6]);
  t.same(splitOf('THIRD'), [[iso(30), 0.333333]], '1/3');
  t.same(splitOf('TENFOLD'), [[iso(30), 10]], '10 (reverse)');
  t.same(splitOf('NEAR_HI'), [[iso(30), 0.5095]], '1.9 % above 1/2: a split');
  t.same(splitOf('NEAR_LO'), [[iso(30), 0.4905]], '1.9 % below 1/2: a split');
  for (const s of ['FAR_HI', 'FAR_LO']) {
    t.same(by[s]!.suspected_splits, [], `${s}: 2.1 % from 1/2 is no split`);
    t.same(
      by[s]!.outliers.map((o) => o.date),
      [iso(30)],
      `${s}: but an outlier`,
    );
  }
  for (const s of ['THIRD', 'TENFOLD', 'NEAR_HI', 'NEAR_LO']) t.same(by[s]!.outliers, [], `${s}: a split is never an outlier`);
  t.same(q.warnings.slice(0, 4), [
    `THIRD: possible 3:1 split on ${iso(30)} (price ratio 0.3333).`,
    `TENFOLD: possible 1:10 reverse split on ${iso(30)} (price ratio 10.0000).`,
    `NEAR_HI: possible 2:1 split on ${iso(30)} (price ratio 0.5095).`,
    `NEAR_LO: possible 2:1 split on ${iso(30)} (price ratio 0.4905).`,
  ]);
  t.same(q.warnings.slice(6), [
    `FLAT: price unchanged for 60 consecutive prices from ${iso(0)} to ${iso(59)} (stale run).`,
    `STEP: 2 stale runs (5 or more equal prices in a row); the longest, 30 consecutive prices from ${iso(0)} to ${iso(29)}.`,
    `ONE: only one price (${iso(7)}); no return can be computed.`,
    'NONE: no prices at all.',
  ]);
  t.match(q.warnings[4], /^FAR_HI: outlier return on /);
  t.match(q.warnings[5], /^FAR_LO: outlier return on /);
});

t.test('fewer than 20 returns: no outliers sought; gaps count calendar days, over dates the file has', async (t) => {
  const short = walk(MIN_RETURNS_FOR_OUTLIERS, 21).map((p, i) => (i === 10 ? p * 3.7 : p));
  const sparse: (number | null)[] = walk(40, 22);
  for (let i = 10; i < 18; i++) sparse[i] = null; // 8 missing days: a gap of 8 > 7, warned
  const q = computeQuality(await parse(wideCsv({ SHORT: short, SPARSE: sparse })));
  t.same(q.symbols[0]!.outliers, [], `${MIN_RETURNS_FOR_OUTLIERS - 1} returns`);
  t.match(q.symbols[1], { longest_gap_days: 8, missing: 8 });
  t.same(q.warnings, [`SPARSE: no price for 8 calendar days between ${iso(9)} and ${iso(18)} (8 of the file’s dates in between have none; 8 missing in all).`]);
  // Weekly rows: 6 calendar days between consecutive prices, but no date of the file without one.
  const weekly = await parse(['date,W', ...walk(30, 23).map((p, i) => `${iso(7 * i)},${p}`)].join('\n'));
  const w = computeQuality(weekly);
  t.match(w.symbols[0], { longest_gap_days: 6, missing: 0 });
  t.same(w.warnings, [], 'a regular weekly series is not a gap');
});

t.test('caps: 100 findings a list, 10,000 listed in all, 200 warnings; counts stay whole', async (t) => {
  const rows = 151;
  const n = 250;
  const d: Dataset = {
    symbols: Array.from({ length: n }, (_, i) => `X${i}`),
    dates: Array.from({ length: rows }, (_, i) => iso(i)),
    prices: new Float64Array(rows * n).map((_, i) => (Math.floor(i / n) % 2 === 0 ? 1 : 2)), // every day a 1:2 or 2:1 ratio
    layout: 'wide',
    missingValues: 0,
  };
  const q = computeQuality(d);
  t.ok(valid.Check(q));
  t.same(
    q.symbols.map((s) => s.counts.suspected_splits),
    Array<number>(n).fill(150),
    'every split counted',
  );
  const listed = q.symbols.map((s) => s.suspected_splits.length);
  t.equal(Math.max(...listed), MAX_FINDINGS_PER_LIST);
  t.equal(
    listed.reduce((a, b) => a + b, 0),
    MAX_FINDINGS_LISTED,
  );
  t.same(listed.slice(99, 101), [100, 0], 'the first symbols first');
  t.equal(q.truncated, true);
  t.equal(q.warnings.length, MAX_WARNINGS);
  t.match(
    q.warnings[0],
    /^X0: 150 possible splits: 1:2 reverse split on 2020-01-02 \(price ratio 2\.0000\); 2:1 split on 2020-01-03 \(price ratio 0\.5000\); .* and 147 more\.$/,
  );
  t.match(q.warnings[150], /^X150: 150 possible splits:/, 'a symbol whose lists are empty still has its sentence');
  t.equal(
    q.warnings[MAX_WARNINGS - 1],
    `… and ${n - MAX_WARNINGS + 1} more warnings, not shown (at most ${MAX_WARNINGS} are listed; the per-symbol entries hold every count).`,
  );
  t.ok(JSON.stringify(q).length < 2_000_000, 'a bounded response');
});

t.test('hostile prices: every number finite', async (t) => {
  const rows = 80;
  const cols = [
    (i: number) => (i % 2 ? 5e-324 : 1.7976931348623157e308),
    (i: number) => (i % 3 ? 1e-300 : 1e300),
    (i: number) => (i % 7 === 0 ? NaN : 1 + (i % 5) * 1e-15),
    (i: number) => Math.exp(Math.sin(i) * 700),
  ];
  const d: Dataset = {
    symbols: cols.map((_, j) => `H${j}`),
    dates: Array.from({ length: rows }, (_, i) => iso(i)),
    prices: new Float64Array(rows * cols.length).map((_, k) => cols[k % cols.length]!(Math.floor(k / cols.length))),
    layout: 'wide',
    missingValues: 0,
  };
  const q = computeQuality(d);
  t.ok(valid.Check(q));
  t.same(
    numbers(q).filter((x) => !Number.isFinite(x)),
    [],
  );
  t.notMatch(q.warnings.join(' '), /NaN|Infinity/);
});

t.test('the middle values: exact against a sort, on any data', async (t) => {
  const rand = mulberry32(9);
  for (let trial = 0; trial < 400; trial++) {
    const n = 1 + Math.floor(rand() * (trial < 200 ? 100 : 3000));
    const kind = trial % 4;
    const a = Float64Array.from({ length: n }, () => {
      const u = rand();
      if (kind === 0) return u; // spread
      if (kind === 1) return Math.floor(u * 5); // ties
      if (kind === 2) return u < 0.01 ? 1e12 * u : u * 1e-3; // a far outlier squeezing the rest
      return Math.exp((u - 0.5) * 1400); // every magnitude
    });
    const sorted = Float64Array.from(a).sort();
    const k = (n - 1) >> 1;
    const want = [sorted[k]!, n % 2 ? sorted[k]! : sorted[k + 1]!];
    t.same(middle(a, n), want, `n = ${n}, kind ${kind}`);
  }
});

t.test('the report is computed once per decoded dataset; the schema states these numbers', async (t) => {
  const d = await parse(wideCsv({ A: walk(50, 1) }));
  t.equal(datasetQuality(d), datasetQuality(d), 'the same object');
  const text = JSON.stringify(SymbolQualitySchema) + JSON.stringify(DatasetQualitySchema);
  for (const s of [
    `${OUTLIER_SIGMAS} × ${MAD_TO_SIGMA} × MAD`,
    `fewer than ${MIN_RETURNS_FOR_OUTLIERS}`,
    '1/2, 1/3, 1/4, 1/5, 1/10',
    '2, 3, 4, 5, 10',
    `At most ${MAX_WARNINGS}`,
    '10,000',
    '≥ 5',
  ]) {
    t.ok(text.includes(s), `the schema says ${s}`);
  }
});
