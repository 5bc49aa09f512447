// Property-based tests of the CSV reader (seeded, reproducible): random datasets written in random
// dialects read back exactly; random corruptions give a dataset or a CsvError, never anything else.
import t from 'tap';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { CsvError } from '../../src/datasets/csv-error.js';
import { mulberry32 as prng } from '../helpers/mulberry32.js';

interface Truth {
  symbols: string[];
  dates: string[];
  prices: number[][]; // [date][symbol], NaN = missing
}

function randomTruth(rand: () => number): Truth {
  const nSym = 1 + Math.floor(rand() * 5);
  const nDates = 2 + Math.floor(rand() * 30);
  const symbols = Array.from({ length: nSym }, (_, i) => `S${i}${rand() < 0.3 ? ' X' : ''}`);
  const dates = Array.from({ length: nDates }, (_, d) => new Date(Date.UTC(2019, 0, 1 + d * 2)).toISOString().slice(0, 10));
  const prices = dates.map(() => symbols.map(() => (rand() < 0.1 ? NaN : Math.round((0.01 + rand() * 500) * 10_000) / 10_000)));
  return { symbols, dates, prices };
}

function render(truth: Truth, rand: () => number): string {
  const delim = [',', ';', '\t'][Math.floor(rand() * 3)]!;
  const eol = rand() < 0.5 ? '\n' : '\r\n';
  const quote = (s: string) => (rand() < 0.3 || s.includes(delim) ? `"${s.replace(/"/g, '""')}"` : s);
  const num = (x: number) =>
    Number.isNaN(x) ? ['', 'NA', 'NaN', 'null'][Math.floor(rand() * 4)]! : delim === ';' && rand() < 0.5 ? String(x).replace('.', ',') : String(x);
  const rows: string[][] = [];
  const long = rand() < 0.4;
  if (long) {
    rows.push(['Date', 'symbol', 'Adj Close', 'Volume']);
    truth.dates.forEach((d, i) => truth.symbols.forEach((s, j) => !Number.isNaN(truth.prices[i]![j]!) && rows.push([d, s, num(truth.prices[i]![j]!), '1'])));
  } else {
    rows.push(['date', ...truth.symbols]);
    truth.dates.forEach((d, i) => rows.push([rand() < 0.2 ? `${d}T16:00:00Z` : d, ...truth.prices[i]!.map(num)]));
  }
  const body = rows.slice(1).sort(() => rand() - 0.5);
  const text = [rows[0]!, ...body].map((r) => r.map(quote).join(delim)).join(eol) + (rand() < 0.7 ? eol : '');
  return (rand() < 0.2 ? '\ufeff' : '') + text;
}

async function* chunked(text: string, rand: () => number): AsyncGenerator<Buffer> {
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length;) {
    const n = 1 + Math.floor(rand() * 50);
    yield buf.subarray(i, i + n);
    i += n;
  }
}

t.test('random valid files read back exactly', async (t) => {
  const rand = prng(20241121);
  let checked = 0;
  for (let iter = 0; iter < 400; iter++) {
    const truth = randomTruth(rand);
    const text = render(truth, rand);
    const d = await readCsv(chunked(text, rand), { maxSymbols: 100 });
    const cols = truth.symbols.map((s) => d.symbols.indexOf(s));
    // A long file has no row for a symbol that is missing on every date.
    const present = truth.symbols.filter((_, j) => cols[j]! >= 0);
    const datesWithData = d.layout === 'long' ? truth.dates.filter((_, i) => truth.prices[i]!.some((p) => !Number.isNaN(p))) : truth.dates;
    if (d.dates.join() !== datesWithData.join() || present.length !== d.symbols.length) {
      t.fail(`iteration ${iter}: dates or symbols differ`, { text: text.slice(0, 300) });
      continue;
    }
    let same = true;
    d.dates.forEach((date, r) => {
      const i = truth.dates.indexOf(date);
      truth.symbols.forEach((_, j) => {
        if (cols[j]! < 0) return;
        const got = d.prices[r * d.symbols.length + cols[j]!]!;
        const want = truth.prices[i]![j]!;
        if (!(Object.is(got, want) || (Number.isNaN(got) && Number.isNaN(want)))) same = false;
      });
    });
    t.ok(same, `iteration ${iter}: prices equal`);
    checked++;
  }
  t.equal(checked, 400);
});

t.test('random corruptions: a dataset or a CsvError, nothing else', async (t) => {
  const rand = prng(7);
  const outcomes = { dataset: 0, csvError: 0 };
  for (let iter = 0; iter < 600; iter++) {
    let text = render(randomTruth(rand), rand);
    const edits = 1 + Math.floor(rand() * 4);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(rand() * text.length);
      const junk = ['"', ',', ';', '\n', '\r', '-', '0', 'x', '\u0000', '\uFFFD', 'é', '""'][Math.floor(rand() * 12)]!;
      text = rand() < 0.5 ? text.slice(0, at) + junk + text.slice(at) : text.slice(0, at) + text.slice(at + 1 + Math.floor(rand() * 5));
    }
    try {
      await readCsv(chunked(text, rand), { maxSymbols: 100 });
      outcomes.dataset++;
    } catch (e) {
      if (!(e instanceof CsvError)) t.fail(`iteration ${iter}: ${String(e)}`, { text: text.slice(0, 300) });
      else outcomes.csvError++;
    }
  }
  t.equal(outcomes.dataset + outcomes.csvError, 600, `${outcomes.dataset} read, ${outcomes.csvError} refused with a reason`);
  t.ok(outcomes.csvError > 100 && outcomes.dataset > 10, 'both outcomes exercised');
});
