// Symbol names at upload (review M4): a name outside the grammar is refused as the other CSV
// errors are (422 INVALID_CSV with reason, line and column) and nothing is stored.
import t from 'tap';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { call, upload } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

t.test('uploads naming a symbol outside the grammar are refused, nothing stored', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  const stored = () => readdirSync(path.join(s.config.dataDir, 'datasets')).filter((f) => f.endsWith('.ds')).length;
  const cases: [string, string, number, number][] = [
    ['a formula in a wide header', 'date,AAPL,"=cmd|\' /C calc\'!A0"\n2020-01-01,1,1\n2020-01-02,1,1\n', 1, 3],
    ['__proto__ in a wide header', 'date,__proto__\n2020-01-01,1\n2020-01-02,1\n', 1, 2],
    ['65 characters in a wide header', `date,${'X'.repeat(65)}\n2020-01-01,1\n2020-01-02,1\n`, 1, 2],
    ['a long-layout name with a quote', 'date,symbol,close\n2020-01-01,A,1\n2020-01-02,"O\'NEIL",1\n', 3, 2],
    ['a long-layout name starting with @', 'Date,Close,Name\n2020-01-01,1,A\n2020-01-02,1,@SUM\n', 3, 3],
  ];
  for (const [label, csv, line, column] of cases) {
    const r = await upload(s.base, s.key, csv);
    t.equal(r.status, 422, `${label}: 422`);
    t.match(
      r.body?.detail,
      { code: 'INVALID_CSV', reason: 'INVALID_SYMBOL', line, column },
      `${label}: INVALID_SYMBOL at ${line}:${column} (${r.body?.detail?.message})`,
    );
  }
  t.equal(stored(), 0, 'nothing stored by any refused upload');
  const list = await call(s.base, 'GET', '/api/v1/risk/datasets', { key: s.key });
  t.same(list.body.datasets, [], 'and nothing listed');

  const fine = await upload(s.base, s.key, `date,BRK.B,BRK-B,S0000,${'X'.repeat(64)}\n2020-01-01,1,1,1,1\n2020-01-02,1,1,1,1\n`);
  t.equal(fine.status, 200, 'BRK.B, BRK-B, S0000 and 64 characters are accepted');
  t.same(fine.body.dataset.symbols, ['BRK.B', 'BRK-B', 'S0000', 'X'.repeat(64)]);
});
