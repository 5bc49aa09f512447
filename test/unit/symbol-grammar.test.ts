// The symbol grammar (review M4): one definition, used by the CSV reader and by the schema that
// validates requests naming symbols; its edges, both ways.
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { CsvError } from '../../src/datasets/csv-error.js';
import { SYMBOL_PATTERN, SymbolName, symbolProblem } from '../../src/contract/symbol-grammar.js';

const schema = SymbolName();
const pattern = new RegExp(SYMBOL_PATTERN);

const accepted = ['A', 'AAPL', 'S0000', 'BRK.B', 'BRK-B', 'S3 X', 'X'.repeat(64), '^GSPC', 'EUR/USD', '1', 'a_b', '~', '__proto', 'Constructor', 'prototypes'];
const refused: [string, string][] = [
  ['', 'empty'],
  ['X'.repeat(65), '65 characters'],
  ['=cmd', 'first ='],
  ['+SUM(1+1)', 'first +'],
  ['-1', 'first -'],
  ['@HYPERLINK', 'first @'],
  ['__proto__', 'reserved __proto__'],
  ['constructor', 'reserved constructor'],
  ['prototype', 'reserved prototype'],
  ["O'NEIL", "a ' quote"],
  ['A"B', 'a " quote'],
  ['A`B', 'a ` quote'],
  ['A\nB', 'a newline'],
  ['A\tB', 'a tab'],
  ['A\u0000', 'NUL'],
  ['A\u007f', 'DEL'],
  ['NESTLÉ', 'non-ASCII'],
  ['株', 'non-ASCII first'],
  [' A', 'a leading space'],
  ['A ', 'a trailing space'],
];

t.test('accepted names: the schema, the pattern and the reader agree', async (t) => {
  for (const name of accepted) {
    t.equal(symbolProblem(name), null, `${JSON.stringify(name)} is a symbol`);
    t.ok(Value.Check(schema, name), `${JSON.stringify(name)}: the schema accepts it`);
    t.ok(pattern.test(name), `${JSON.stringify(name)}: the pattern accepts it`);
  }
  t.equal('X'.repeat(64).length, 64);
});

t.test('refused names: each edge, with a reason', async (t) => {
  for (const [name, why] of refused) {
    t.type(symbolProblem(name), 'string', `${why}: refused (${symbolProblem(name)})`);
    t.notOk(Value.Check(schema, name), `${why}: the schema refuses it`);
  }
  t.equal(symbolProblem('X'.repeat(65)), 'is longer than 64 characters');
  t.equal(symbolProblem('constructor'), 'is a reserved name');
  t.equal(symbolProblem('-1'), 'starts with = + - or @');
});

async function* one(text: string): AsyncGenerator<Buffer> {
  yield Buffer.from(text);
}

async function reason(text: string): Promise<{ reason: string; line: number; column?: number } | 'accepted'> {
  try {
    await readCsv(one(text), { maxSymbols: 10 });
    return 'accepted';
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    return { reason: e.reason, line: e.line, ...(e.column !== undefined ? { column: e.column } : {}) };
  }
}

t.test('the reader refuses them in a wide header and in a long symbol column, with line and column', async (t) => {
  t.same(await reason('date,AAPL,"=cmd|\' /C calc\'!A0"\n2020-01-01,1,1\n2020-01-02,1,1\n'), { reason: 'INVALID_SYMBOL', line: 1, column: 3 });
  t.same(await reason(`date,${'X'.repeat(65)}\n2020-01-01,1\n2020-01-02,1\n`), { reason: 'INVALID_SYMBOL', line: 1, column: 2 });
  t.same(await reason(`date,${'X'.repeat(64)}\n2020-01-01,1\n2020-01-02,1\n`), 'accepted');
  t.same(await reason('date,__proto__\n2020-01-01,1\n2020-01-02,1\n'), { reason: 'INVALID_SYMBOL', line: 1, column: 2 });
  // A quoted newline: the record spans lines 4 and 5, and the reader names the line it ends on.
  t.same(await reason('date,symbol,close\n2020-01-01,A,1\n2020-01-02,A,1\n2020-01-02,"B\nC",1\n'), { reason: 'INVALID_SYMBOL', line: 5, column: 2 });
  t.same(await reason('date,symbol,close\n2020-01-01,A,1\n2020-01-02,@SUM,1\n'), { reason: 'INVALID_SYMBOL', line: 3, column: 2 });
  t.same(await reason('date,symbol,close\n2020-01-01,BRK.B,1\n2020-01-02,BRK-B,1\n2020-01-02,BRK.B,1\n'), 'accepted');
});
