// A backtest's series against its recomputation in a test: each row's date exactly, its VaR to
// 1e-8 and its realised P&L to 1e-9 (relative, absolute near 0), one failure named per row that differs.
import { type Test } from 'tap';

export interface SeriesRow {
  date: string;
  var: number;
  pnl: number;
}

const close = (got: number, want: number, rel: number) => Math.abs(got - want) <= rel * Math.max(1, Math.abs(want));

export function sameSeries(t: Test, series: SeriesRow[], want: (i: number) => SeriesRow, what: string): void {
  let bad = 0;
  series.forEach((row, i) => {
    const w = want(i);
    if (row.date !== w.date || !close(row.var, w.var, 1e-8) || !close(row.pnl, w.pnl, 1e-9)) {
      bad++;
      t.fail(`${row.date}: VaR ${row.var} vs ${w.var}, P&L ${row.pnl} vs ${w.pnl}`);
    }
  });
  t.equal(bad, 0, `${what} (${series.length} rows)`);
}
