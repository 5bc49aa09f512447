// The CSV reader: both layouts, dialects, and every rejection with its reason, line and column.
import t, { type Test } from 'tap';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { CsvError } from '../../src/datasets/csv-error.js';
import { parseDate } from '../../src/datasets/csv-values.js';

async function* chunks(text: string | Buffer, size = 7): AsyncGenerator<Buffer> {
  const buf = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}
const limits = { maxSymbols: 3 };
const read = (text: string | Buffer) => readCsv(chunks(text), limits);

async function rejects(t: Test, text: string | Buffer, reason: string, line?: number, column?: number) {
  try {
    await read(text);
    t.fail(`accepted: ${JSON.stringify(text.toString().slice(0, 40))}`);
  } catch (e) {
    t.ok(e instanceof CsvError, 'a CsvError');
    const err = e as CsvError;
    t.equal(err.reason, reason, `${reason}: ${err.message}`);
    if (line !== undefined) t.equal(err.line, line, 'line');
    if (column !== undefined) t.equal(err.column, column, 'column');
  }
}

t.test('wide layout with BOM, CRLF, quotes and missing values', async (t) => {
  const d = await read('\ufeffdate,"A",B\r\n2020-01-03,1.5,NA\r\n2020-01-02,"2",\r\n2020-01-06T16:00:00Z,3,null\r\n');
  t.same(d.symbols, ['A', 'B']);
  t.same(d.dates, ['2020-01-02', '2020-01-03', '2020-01-06'], 'rows in any order, sorted by date');
  t.same(Array.from(d.prices.filter((_, i) => i % 2 === 0)), [2, 1.5, 3]);
  t.equal(d.missingValues, 3, 'NA, empty and null are missing, never zero');
  t.equal(d.layout, 'wide');
});

t.test('long layout picks Adj Close over Close and ignores other columns', async (t) => {
  const d = await read('Date,Close,Adj Close,Name,Volume\n2020-01-01,10,9,X,5\n2020-01-01,20,19,Y,5\n2020-01-02,11,10,X,5\n');
  t.same(d.symbols, ['X', 'Y']);
  t.same(Array.from(d.prices), [9, 19, 10, NaN]);
  t.equal(d.layout, 'long');
  t.equal(d.missingValues, 1, 'Y has no price on 2020-01-02');
});

t.test('semicolon files accept decimal commas; tab files are detected', async (t) => {
  const semi = await read('date;A;B\n2020-01-01;1,25;3\n2020-01-02;"1,5";4\n');
  t.same(Array.from(semi.prices), [1.25, 3, 1.5, 4]);
  const tab = await read('date\tA\n2020-01-01\t1\n2020-01-02\t2\n');
  t.same(Array.from(tab.prices), [1, 2]);
});

t.test('rejections carry reason, line and column', async (t) => {
  await rejects(t, '', 'EMPTY_FILE');
  await rejects(t, 'date,A\n', 'TOO_FEW_DATES');
  await rejects(t, 'date,A\n2020-01-01,1\n', 'TOO_FEW_DATES');
  await rejects(t, 'date,A\n2020-01-01,1\n2020-01-02,0\n', 'INVALID_PRICE', 3, 2);
  await rejects(t, 'date,A\n2020-01-01,-4\n2020-01-02,1\n', 'INVALID_PRICE', 2, 2);
  await rejects(t, 'date,A,B\n2020-01-01,1,abc\n2020-01-02,1,2\n', 'INVALID_PRICE', 2, 3);
  await rejects(t, 'date,A\n2020-01-01,Infinity\n2020-01-02,1\n', 'INVALID_PRICE', 2, 2);
  await rejects(t, 'date,A\n2020-01-01,1e999\n2020-01-02,1\n', 'INVALID_PRICE', 2, 2);
  await rejects(t, 'date,A\n2020-01-01,1\n2020-01-01,2\n', 'DUPLICATE_DATE', 3, 1);
  await rejects(t, 'date,symbol,price\n2020-01-01,X,1\n2020-01-02,X,1\n2020-01-01,X,2\n', 'DUPLICATE_DATE', 4);
  await rejects(t, 'date,A\n01/02/2020,1\n2020-01-02,1\n', 'INVALID_DATE', 2, 1);
  await rejects(t, 'date,A\n2020-02-30,1\n2020-01-02,1\n', 'INVALID_DATE', 2, 1);
  await rejects(t, 'date,A,A\n2020-01-01,1,2\n', 'DUPLICATE_SYMBOL', 1, 3);
  await rejects(t, 'date\n2020-01-01\n', 'MISSING_COLUMNS', 1);
  await rejects(t, 'date,A,B\n2020-01-01,1\n', 'COLUMN_COUNT', 2);
  await rejects(t, 'date,A,B,C,D\n2020-01-01,1,1,1,1\n', 'TOO_MANY_SYMBOLS', 1);
  await rejects(t, 'date,A\n2020-01-01,"1\n2020-01-02,2\n', 'MALFORMED_CSV');
  await rejects(t, Buffer.from([0x64, 0x61, 0x74, 0x65, 0x2c, 0xff, 0xfe, 0x0a]), 'INVALID_ENCODING');
  await rejects(t, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00]), 'INVALID_ENCODING', undefined);
  await rejects(t, 'date,A\n2020-01-01,1\u0000\n', 'BINARY_CONTENT');
  await rejects(t, 'date,A\n2020-01-01,' + 'x'.repeat(1_100_000) + '\n', 'MALFORMED_CSV');
});

t.test('dates: YYYY-MM-DD, then an ISO 8601 time and zone or nothing; every year from 0000', async (t) => {
  const kept: [string, string][] = [
    ['2020-01-06', '2020-01-06'],
    ['2020-01-06T16:00', '2020-01-06'],
    ['2020-01-06T16:00:00Z', '2020-01-06'],
    ['2020-01-06 16:00:00.123+05:30', '2020-01-06'],
    ['2020-01-06T16:00:00,5-0500', '2020-01-06'],
    ['2020-01-06T23:59:60Z', '2020-01-06'],
    ['2020-01-06T00:00-03', '2020-01-06'],
    ['2024-02-29', '2024-02-29'],
    // Years 0–99 were read as 1900–1999 (Date.UTC's rule), so valid ones were refused.
    ['0000-01-01', '0000-01-01'],
    ['0096-02-29', '0096-02-29'],
    ['0099-12-31', '0099-12-31'],
    ['9999-12-31', '9999-12-31'],
  ];
  for (const [raw, date] of kept) t.equal(parseDate(raw), date, raw);
  // Anything after the date that is no time was taken (`2020-01-01Tgarbage` was a date).
  for (const raw of [
    '2020-01-01Tgarbage',
    '2020-01-01T',
    '2020-01-01T24:00',
    '2020-01-01T12:60',
    '2020-01-01T12',
    '2020-01-01T12:00:00+25:00',
    '2020-01-01T12:00:00ZZ',
    '2023-02-29',
    '0099-02-29',
    '2020-13-01',
    '2020-00-10',
    '2020-1-01',
    '20200101',
  ]) {
    t.equal(parseDate(raw), null, raw);
  }
});
