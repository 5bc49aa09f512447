import { Type, type Static } from '@sinclair/typebox';
import { literals } from './schemas.js';

const Success = Type.Literal('success', { description: 'Always "success" on a 200.' });

/** One date of the dataset, `YYYY-MM-DD`. */
const IsoDate = (description: string) => Type.String({ format: 'date', description });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const StaleRunSchema = Type.Object({
  start: IsoDate('First date of the run.'),
  end: IsoDate('Last date of the run.'),
  length: Type.Integer({ minimum: 5, description: 'Number of equal prices in the run (priced dates; missing cells inside neither break nor extend it).' }),
});

export const SuspectedSplitSchema = Type.Object({
  date: IsoDate('Date of the later price of the pair.'),
  ratio: Type.Number({
    description: 'Observed ratio P_t / P_{t−1} of the two consecutive priced dates (e.g. 0.5012 for a 2:1 split, 3.01 for a 1:3 reverse split).',
  }),
});

export const OutlierSchema = Type.Object({
  date: IsoDate('Date of the later price of the pair.'),
  log_return: Type.Number({ description: 'r = ln(P_t / P_{t−1}) over two consecutive priced dates of the symbol (across any missing cells between them).' }),
  robust_z: Type.Number({ description: '(r − median) / (1.4826 × MAD): signed distance from the median in robust σ (|robust_z| > 10).' }),
});

export const SymbolQualitySchema = Type.Object(
  {
    symbol: Type.String({ description: 'The symbol, as in `dataset.symbols`.' }),
    first_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'First date with a price for this symbol; null when it has none.' }),
    last_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'Last date with a price for this symbol; null when it has none.' }),
    observations: Count('Number of dates with a price for this symbol.'),
    missing: Count(
      'Dates of the file without a price for this symbol between its first and last priced date (leading and trailing empty cells are not counted).',
    ),
    longest_gap_days: Count(
      'Longest run of calendar days without a price between two consecutive priced dates of this symbol: (later date − earlier date) in days − 1. ' +
        'Consecutive days give 0, a weekend 2 (a daily business-day series shows 2, or 3–4 around holidays); 0 with fewer than 2 prices.',
    ),
    stale_runs: Type.Array(StaleRunSchema, {
      description: 'Runs of ≥ 5 consecutive equal prices over the symbol’s priced dates, in date order; at most 100 listed (see counts).',
    }),
    suspected_splits: Type.Array(SuspectedSplitSchema, {
      description:
        'Consecutive priced dates whose price ratio P_t / P_{t−1} lies within 2 % (relative: |ratio / k − 1| ≤ 0.02) of k in ' +
        '1/2, 1/3, 1/4, 1/5, 1/10 (splits) or 2, 3, 4, 5, 10 (reverse splits); in date order, at most 100 listed (see counts).',
    }),
    outliers: Type.Array(OutlierSchema, {
      description:
        'Log returns r over consecutive priced dates with |r − median| > 10 × 1.4826 × MAD (MAD = median of |r − median|; the median of an even ' +
        'count is the mean of the two middle values), median and MAD taken over the symbol’s returns other than suspected splits, which are ' +
        'never outliers. None when the symbol has fewer than 20 such returns, or when 1.4826 × MAD < 1e-12 (MAD = 0: more than half the returns ' +
        'equal, no scale to measure by). In date order, at most 100 listed (see counts).',
    }),
    counts: Type.Object(
      {
        stale_runs: Count('Stale runs found.'),
        suspected_splits: Count('Suspected splits found.'),
        outliers: Count('Outliers found.'),
      },
      { description: 'How many of each were found; a list holds fewer when it was cut (100 per list, 10,000 listed findings per dataset).' },
    ),
  },
  { description: 'Data quality of one symbol’s price series.' },
);

export const DatasetQualitySchema = Type.Object(
  {
    symbols: Type.Array(SymbolQualitySchema, { description: 'One entry per symbol, in the order of `dataset.symbols`.' }),
    warnings: Type.Array(Type.String(), {
      description:
        'Human sentences, each starting with its symbol: one per symbol and kind, ordered by kind, then by symbol. Kinds: suspected splits; outliers; ' +
        'stale runs; a gap, when more than 7 calendar days without a price span dates the file has (the longest such gap is named; a regular weekly ' +
        'series is no gap); fewer than 2 prices. At most 200: when there are more, the 200th says how many were left out.',
    }),
    truncated: Type.Boolean({
      description:
        'True when a list or the warnings were cut: each list holds at most 100 findings, at most 10,000 are listed per dataset (first symbols first).',
    }),
  },
  {
    description: 'Data-quality report of the dataset (api.md §11). Informational: a finding never rejects an upload. Every number is finite.',
    examples: [
      {
        symbols: [
          {
            symbol: 'AAPL',
            first_date: '2020-01-02',
            last_date: '2020-12-31',
            observations: 248,
            missing: 5,
            longest_gap_days: 9,
            stale_runs: [{ start: '2020-03-02', end: '2020-03-06', length: 5 }],
            suspected_splits: [{ date: '2020-08-31', ratio: 0.2502 }],
            outliers: [{ date: '2020-03-16', log_return: -0.1377, robust_z: -11.2 }],
            counts: { stale_runs: 1, suspected_splits: 1, outliers: 1 },
          },
        ],
        warnings: [
          'AAPL: possible 4:1 split on 2020-08-31 (price ratio 0.2502).',
          'AAPL: outlier return on 2020-03-16 (log return -0.1377, -11.2 robust σ from the median).',
          'AAPL: price unchanged for 5 consecutive prices from 2020-03-02 to 2020-03-06 (stale run).',
          'AAPL: no price for 9 calendar days between 2020-06-05 and 2020-06-15 (5 of the file’s dates in between have none; 5 missing in all).',
        ],
        truncated: false,
      },
    ],
  },
);

export type SymbolQuality = Static<typeof SymbolQualitySchema>;
export type DatasetQuality = Static<typeof DatasetQualitySchema>;

export const DatasetSummarySchema = Type.Object(
  {
    symbols: Type.Array(Type.String(), { description: 'Symbols of the dataset, in the order of the file.' }),
    rows: Type.Integer({ description: 'Dates of the dataset.' }),
    first_date: IsoDate('First date of the dataset.'),
    last_date: IsoDate('Last date of the dataset.'),
    layout: literals(['wide', 'long'], 'Layout detected from the header.'),
    missing_values: Type.Integer({ description: 'Cells without a price (date × symbol).' }),
    quality: DatasetQualitySchema,
    base_currency: Type.Optional(
      Type.Union([Type.String({ description: 'ISO 4217 code.' }), Type.Null()], {
        description: 'Multi-currency datasets: the currency of every series `currencies` did not name at upload (null when it named all).',
        examples: ['USD'],
      }),
    ),
    currencies: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Multi-currency datasets: each price series’ ISO 4217 currency (FX columns excluded).',
        examples: [{ AAPL: 'USD', SAP: 'EUR' }],
      }),
    ),
    fx_pairs: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]{6}$' }), {
        description: 'Multi-currency datasets: FX columns `CCY1CCY2` (units of CCY2 per one CCY1), risk factors rather than instruments, in the file’s order.',
        examples: [['EURUSD', 'USDJPY']],
      }),
    ),
  },
  { description: 'What the dataset holds. Single-currency datasets (no `currencies` or `base_currency` at upload) have no currency fields.' },
);

export type DatasetSummary = Static<typeof DatasetSummarySchema>;

/** How long an upload's Idempotency-Key is remembered. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;
/** An Idempotency-Key: 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

const DatasetId = Type.String({ pattern: '^ds_[0-9A-Za-z]{16,}$', description: 'Id of the dataset, for calculations.' });

export const UploadResponse = Type.Object({
  status: Success,
  dataset_id: DatasetId,
  dataset: DatasetSummarySchema,
});

export const DatasetResponse = Type.Object({
  status: Success,
  dataset_id: DatasetId,
  dataset: DatasetSummarySchema,
});

export const DeletedResponse = Type.Object(
  {
    status: Success,
    dataset_id: Type.String({ description: 'Id of the deleted dataset.' }),
  },
  { description: 'The dataset is gone: its id answers 404 DATASET_NOT_FOUND from now on.' },
);
