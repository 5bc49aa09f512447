// The quality report over HTTP (api.md §11): upload and GET both carry `dataset.quality`, a file
// full of findings is still accepted, and the shared sample shows the findings it really has.
import t from 'tap';
import { FormatRegistry } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { DatasetResponse, UploadResponse } from '../../src/contract/dataset-schemas.js';
import { call, upload, uploadFile } from '../helpers/http.js';
import { iso, qualityCase, wideCsv } from '../helpers/price-series.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (v) => /^\d{4}-\d{2}-\d{2}$/.test(v));
const uploadShape = TypeCompiler.Compile(UploadResponse);
const getShape = TypeCompiler.Compile(DatasetResponse);

/** 300 calendar days: CLEAN, and a split, a stale run, a gap and an outlier (price-series.ts). */
const findingsCsv = () => wideCsv(qualityCase(), (p) => p.toFixed(6));

t.test('upload and GET carry the quality report; findings never reject an upload', async (t) => {
  const s = await startTestService();
  let stopped = false;
  t.teardown(() => (stopped ? undefined : s.stop()));

  const up = await upload(s.base, s.key, findingsCsv());
  t.equal(up.status, 200, 'accepted despite four findings');
  t.ok(uploadShape.Check(up.body), 'the upload response matches its schema');
  const q = up.body.dataset.quality;
  t.same(
    q.symbols.map((x: { symbol: string }) => x.symbol),
    ['CLEAN', 'SPLIT', 'STALE', 'GAP', 'SPIKE'],
  );
  const [clean, split, stale, gap, spike] = q.symbols;
  t.match(clean, { observations: 300, missing: 0, longest_gap_days: 0, stale_runs: [], suspected_splits: [], outliers: [] });
  t.same(
    split.suspected_splits.map((x: { date: string; ratio: number }) => [x.date, x.ratio.toFixed(4)]),
    [[iso(150), '0.5000']],
  );
  t.same(stale.stale_runs, [{ start: iso(99), end: iso(108), length: 10 }]);
  t.match(gap, { observations: 270, missing: 30, longest_gap_days: 30 });
  t.same(
    spike.outliers.map((x: { date: string; log_return: number }) => [x.date, x.log_return.toFixed(4)]),
    [[iso(180), '0.2231']],
  );
  const counts = q.symbols.map((x: { counts: object }) => Object.values(x.counts));
  t.same(counts, [
    [0, 0, 0],
    [0, 1, 0],
    [1, 0, 0],
    [0, 0, 0],
    [0, 0, 1],
  ]);
  t.equal(q.warnings.length, 4);
  t.match(q.warnings, [
    /^SPLIT: possible 2:1 split on 2020-05-30/,
    /^SPIKE: outlier return on 2020-06-29/,
    /^STALE: price unchanged for 10/,
    /^GAP: no price for 30 calendar days/,
  ]);

  const id = up.body.dataset_id as string;
  const got = await call(s.base, 'GET', `/api/v1/risk/datasets/${id}`, { key: s.key });
  t.equal(got.status, 200);
  t.ok(getShape.Check(got.body), 'the GET response matches its schema');
  t.same(got.body.dataset, up.body.dataset, 'GET returns the same dataset object, quality included');

  // A hostile file: findings on every row of every symbol; still accepted, the report bounded.
  const rows = ['date,' + Array.from({ length: 300 }, (_, j) => `H${j}`).join(',')];
  for (let i = 0; i < 120; i++)
    rows.push(
      `${iso(i)},` +
        Array<string>(300)
          .fill(i % 2 ? '1' : '2')
          .join(','),
    );
  const hostile = await upload(s.base, s.key, rows.join('\n'));
  t.equal(hostile.status, 200, 'accepted');
  t.ok(uploadShape.Check(hostile.body));
  t.equal(hostile.body.dataset.quality.truncated, true);
  t.equal(hostile.body.dataset.quality.warnings.length, 200);

  // After a restart the dataset is decoded from disk and its report computed again: the same.
  await s.stop(true);
  stopped = true;
  const again = await startTestService({}, s.dir);
  t.teardown(() => again.stop());
  const reloaded = await call(again.base, 'GET', `/api/v1/risk/datasets/${id}`, { key: again.key });
  t.equal(reloaded.status, 200);
  t.same(reloaded.body.dataset.quality, q, 'the same report from the stored file');
});

t.test('the shared wide sample: the findings it really has', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const up = await uploadFile(s.base, s.key, WIDE_SAMPLE);
  t.equal(up.status, 200);
  const q = up.body.dataset.quality;
  const by = Object.fromEntries(q.symbols.map((x: { symbol: string }) => [x.symbol, x]));
  for (const sym of ['AAPL', 'MSFT', 'AMZN', 'GOOGL', 'JPM', 'XOM', 'JNJ', 'PG', 'KO']) {
    t.match(by[sym], { first_date: '2015-01-12', last_date: '2020-01-10', longest_gap_days: 3 }, `${sym}: the whole range, weekends only`);
  }
  t.match(by.KHC, { first_date: '2015-07-06', observations: 1139, missing: 0 }, 'KHC starts at its listing (2015-07-06); leading blanks are not missing');
  t.match(by.JNJ, { observations: 1256, missing: 3 }, 'JNJ lacks 2019-11-19, -20 and -22');
  t.same(
    q.symbols.flatMap((x: { stale_runs: unknown[]; suspected_splits: unknown[] }) => [...x.stale_runs, ...x.suspected_splits]),
    [],
    'adjusted closes: no stale run, no split',
  );
  const outliers = q.symbols.flatMap((x: { symbol: string; outliers: { date: string; log_return: number }[] }) =>
    x.outliers.map((o) => `${x.symbol} ${o.date} ${o.log_return.toFixed(4)}`),
  );
  t.same(
    outliers,
    [
      'AMZN 2015-01-30 0.1285',
      'AMZN 2015-04-24 0.1322',
      'GOOGL 2015-07-17 0.1506',
      'JNJ 2018-12-14 -0.1058',
      'PG 2018-10-19 0.0843',
      'KO 2019-02-14 -0.0881',
      'KHC 2019-02-22 -0.3210',
      'KHC 2019-10-31 0.1261',
    ],
    'real earnings and news days beyond 10 robust σ',
  );
  t.same(
    q.warnings.map((w: string) => w.split(':')[0]),
    ['AMZN', 'GOOGL', 'JNJ', 'PG', 'KO', 'KHC'],
    'one outlier warning per symbol with outliers',
  );
  t.equal(
    q.warnings[6 - 1],
    'KHC: 2 outlier returns (more than 10 robust σ from the median): 2019-02-22 (log return -0.3210, -30.9 robust σ from the median); 2019-10-31 (log return 0.1261, 12.2 robust σ from the median).',
  );
});
