import { symbolProblem } from '../contract/symbol-grammar.js';
import { CsvError } from './csv-error.js';
import { parseDate, parsePrice } from './csv-values.js';
import { type Dataset } from './dataset.js';

const DATE_COLUMNS = ['date', 'Date', 'timestamp'];
const SYMBOL_COLUMNS = ['symbol', 'ticker', 'Name'];
const PRICE_COLUMNS = ['adj_close', 'Adj Close', 'adjclose', 'close', 'Close', 'price'];

export interface BuilderLimits {
  maxSymbols: number;
}

/** Observations placed (or cells counted) between two turns of the event loop: a few ms (review L7). */
const CELLS_PER_TURN = 1 << 18;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Observations per block: the log grows a block at a time, never by copying what it holds. */
const BLOCK = 1 << 16;

/**
 * Observations (date index, symbol index, price, line) in fixed-size typed blocks. Growing plain
 * arrays of millions copies them whole at each growth, a pause of its own (review L7).
 */
class ObservationLog {
  private dates: Int32Array[] = [];
  private symbols: Int32Array[] = [];
  private prices: Float64Array[] = [];
  private lines: Int32Array[] = [];
  length = 0;

  push(date: number, symbol: number, price: number, line: number): void {
    const at = this.length % BLOCK;
    if (at === 0) {
      this.dates.push(new Int32Array(BLOCK));
      this.symbols.push(new Int32Array(BLOCK));
      this.prices.push(new Float64Array(BLOCK));
      this.lines.push(new Int32Array(BLOCK));
    }
    const b = this.dates.length - 1;
    this.dates[b]![at] = date;
    this.symbols[b]![at] = symbol;
    this.prices[b]![at] = price;
    this.lines[b]![at] = line;
    this.length++;
  }

  /** The i-th observation's fields. */
  date = (i: number) => this.dates[(i / BLOCK) | 0]![i % BLOCK]!;
  symbol = (i: number) => this.symbols[(i / BLOCK) | 0]![i % BLOCK]!;
  price = (i: number) => this.prices[(i / BLOCK) | 0]![i % BLOCK]!;
  line = (i: number) => this.lines[(i / BLOCK) | 0]![i % BLOCK]!;
}

/** Long layout columns, when the header names a date, a symbol and a price column. */
function longColumns(header: string[]): { date: number; symbol: number; price: number } | null {
  const find = (names: string[]) => {
    for (const name of names) {
      const i = header.indexOf(name);
      if (i >= 0) return i;
    }
    return -1;
  };
  const date = find(DATE_COLUMNS);
  const symbol = find(SYMBOL_COLUMNS);
  const price = find(PRICE_COLUMNS);
  return date >= 0 && symbol >= 0 && price >= 0 ? { date, symbol, price } : null;
}

/** Refuses a name outside the symbol grammar; the message shows a bounded, printable excerpt. */
function checkSymbol(symbol: string, line: number, column: number): void {
  const problem = symbolProblem(symbol);
  if (problem === null) return;
  const shown = JSON.stringify(symbol.slice(0, 40)).replace(/[^\x20-\x7e]/g, '?');
  throw new CsvError('INVALID_SYMBOL', `symbol ${shown} ${problem}`, line, column);
}

/**
 * Builds a dataset from CSV records as they stream in (header first). Every rule of the format
 * is checked here, with the line and column of the first offending cell.
 */
export class DatasetBuilder {
  private header: string[] | null = null;
  private long: { date: number; symbol: number; price: number } | null = null;
  private readonly symbolIndex = new Map<string, number>();
  private readonly symbols: string[] = [];
  private readonly dateIndex = new Map<string, number>();
  private readonly dateLines: number[] = [];
  private readonly obs = new ObservationLog();

  constructor(
    private readonly limits: BuilderLimits,
    private readonly decimalComma: boolean,
  ) {}

  add(record: string[], line: number): void {
    if (this.header === null)
      return this.setHeader(
        record.map((c) => c.trim()),
        line,
      );
    if (record.length === 1 && record[0]!.trim() === '') return; // blank line
    if (record.length !== this.header.length) {
      throw new CsvError('COLUMN_COUNT', `line ${line} has ${record.length} fields, the header has ${this.header.length}`, line);
    }
    if (this.long) this.addLong(record, line);
    else this.addWide(record, line);
  }

  private setHeader(header: string[], line: number): void {
    this.header = header;
    this.long = longColumns(header);
    if (this.long) return;
    if (header.length < 2) throw new CsvError('MISSING_COLUMNS', 'the header needs a date column and at least one symbol column', line);
    header.slice(1).forEach((symbol, i) => {
      if (symbol === '') throw new CsvError('MISSING_COLUMNS', `column ${i + 2} has no symbol name`, line, i + 2);
      checkSymbol(symbol, line, i + 2);
      if (this.symbolIndex.has(symbol)) throw new CsvError('DUPLICATE_SYMBOL', `symbol ${symbol} appears twice in the header`, line, i + 2);
      this.addSymbol(symbol, line, i + 2);
    });
  }

  private addSymbol(symbol: string, line: number, column: number): number {
    const known = this.symbolIndex.get(symbol);
    if (known !== undefined) return known;
    if (this.symbols.length >= this.limits.maxSymbols) {
      throw new CsvError('TOO_MANY_SYMBOLS', `more than ${this.limits.maxSymbols} symbols`, line, column);
    }
    this.symbolIndex.set(symbol, this.symbols.length);
    this.symbols.push(symbol);
    return this.symbols.length - 1;
  }

  private date(raw: string, line: number, column: number): number {
    const date = parseDate(raw);
    if (date === null) throw new CsvError('INVALID_DATE', `"${raw.slice(0, 40)}" is not an ISO 8601 date (YYYY-MM-DD)`, line, column);
    let index = this.dateIndex.get(date);
    if (index === undefined) {
      index = this.dateLines.length;
      this.dateIndex.set(date, index);
      this.dateLines.push(line);
    }
    return index;
  }

  private observe(dateIdx: number, symbolIdx: number, raw: string, line: number, column: number): void {
    const cell = parsePrice(raw, this.decimalComma);
    if (cell.kind === 'invalid') {
      throw new CsvError('INVALID_PRICE', `price "${raw.slice(0, 40)}" ${cell.why}`, line, column);
    }
    this.obs.push(dateIdx, symbolIdx, cell.kind === 'price' ? cell.value : NaN, line);
  }

  private addWide(record: string[], line: number): void {
    const before = this.dateLines.length;
    const dateIdx = this.date(record[0]!, line, 1);
    if (this.dateLines.length === before) {
      throw new CsvError('DUPLICATE_DATE', `date ${record[0]!.trim()} appears twice`, line, 1);
    }
    for (let c = 1; c < record.length; c++) this.observe(dateIdx, c - 1, record[c]!, line, c + 1);
  }

  private addLong(record: string[], line: number): void {
    const cols = this.long!;
    const symbol = record[cols.symbol]!.trim();
    if (symbol === '') throw new CsvError('MISSING_COLUMNS', 'empty symbol', line, cols.symbol + 1);
    if (!this.symbolIndex.has(symbol)) checkSymbol(symbol, line, cols.symbol + 1);
    const dateIdx = this.date(record[cols.date]!, line, cols.date + 1);
    const symbolIdx = this.addSymbol(symbol, line, cols.symbol + 1);
    this.observe(dateIdx, symbolIdx, record[cols.price]!, line, cols.price + 1);
  }

  /** The dataset, assembled with the event loop free every CELLS_PER_TURN cells. */
  async finish(lastLine: number): Promise<Dataset> {
    if (this.header === null) throw new CsvError('EMPTY_FILE', 'the file is empty', 1);
    if (this.symbols.length === 0) throw new CsvError('NO_SYMBOLS', 'no symbol columns', 1);
    const byDate = [...this.dateIndex.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const rowOf = new Int32Array(byDate.length);
    byDate.forEach(([, idx], row) => (rowOf[idx] = row));
    const n = this.symbols.length;
    const prices = new Float64Array(byDate.length * n);
    for (let at = 0; at < prices.length; at += CELLS_PER_TURN) {
      prices.fill(NaN, at, at + CELLS_PER_TURN);
      await nextTurn();
    }
    const seen = new Uint8Array(byDate.length * n);
    const obs = this.obs;
    for (let i = 0; i < obs.length; i++) {
      if (i % CELLS_PER_TURN === CELLS_PER_TURN - 1) await nextTurn();
      const cell = rowOf[obs.date(i)]! * n + obs.symbol(i);
      if (seen[cell]) throw new CsvError('DUPLICATE_DATE', `${this.symbols[obs.symbol(i)]} has two prices for one date`, obs.line(i));
      seen[cell] = 1;
      prices[cell] = obs.price(i);
    }
    if (this.dateLines.length < 2) {
      throw new CsvError('TOO_FEW_DATES', `${this.dateLines.length} dates; at least 2 are needed`, lastLine);
    }
    let missingValues = 0;
    for (let i = 0; i < prices.length; i++) {
      if (i % CELLS_PER_TURN === CELLS_PER_TURN - 1) await nextTurn();
      if (Number.isNaN(prices[i]!)) missingValues++;
    }
    return {
      symbols: this.symbols,
      dates: byDate.map(([d]) => d),
      prices,
      layout: this.long ? 'long' : 'wide',
      missingValues,
    };
  }
}
