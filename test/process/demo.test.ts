// `npm run demo` as a new user runs it: the tables print, no false warning, and nothing is left behind.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../../src/paths.js';
import { tempDir, testEnv } from '../helpers/service.js';

t.test('the demo prints every method and mode, warns of nothing, and leaves no key or dataset', async (t) => {
  const dir = tempDir();
  const env = { ...testEnv(dir), LOG_LEVEL: 'info' };
  const r = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/cli/demo.js')], { env, encoding: 'utf8', timeout: 600_000 });
  t.equal(r.status, 0, `exit 0${r.status === 0 ? '' : `: ${r.stderr}`}`);
  for (const row of ['parametric_normal        buy_and_hold', 'historical               rebalanced', 'monte_carlo_student_t    rebalanced']) {
    t.match(r.stdout, row, `a row for ${row.replace(/ +/, ' ')}`);
  }
  t.notMatch(r.stdout, 'parametric_normal        rebalanced', 'no row the service would refuse');
  t.match(r.stdout, /what-if AAPL -2000 sh: VaR [\d,]+ \([+−][\d,]+ ± \d+\)/, 'the what-if line');
  t.match(r.stdout, /Target 0\.5 %: ES [\d,]+ ± 0\.\d+ % after [\d,]+ simulations \(\d+ rounds\), \d+ ms/, 'the precision line');
  t.match(
    r.stdout,
    /Target 0\.5 %, importance sampling: ES [\d,]+ ± 0\.\d+ % after [\d,]+ simulations \(\d+ rounds?\), \d+ ms/,
    'the same with importance sampling',
  );
  t.match(r.stdout, /Backtest, historical 1-day VaR 99 % over 250 days: \d+ exceptions/, 'the backtest line');
  t.match(r.stdout, /q4_2018 +2018-09-20 → 2018-12-24 +-[\d,]+/, 'the stress table');
  // The EUR desk (seeded, the same on every build) prints what the README shows.
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const desk = /```\n(EUR desk \(fx-desk\.csv\)[^`]*)```/.exec(readme);
  t.ok(desk, 'the README shows the EUR desk');
  t.ok(r.stdout.includes(desk![1]!), 'the multi-currency desk prints exactly the README’s lines (FX effect and currency breakdown)');
  // The option books (seeded, every build prices options to the same bits) print what the README shows.
  const options = /```\n(Option books \(AAPL[^`]*)```/.exec(readme);
  t.ok(options, 'the README shows the option books');
  t.ok(r.stdout.includes(options![1]!), 'the covered call and the short straddle print exactly the README’s lines (full vs delta VaR)');
  t.notMatch(r.stdout + r.stderr, /no API keys exist|prk_live_/, 'no false warning, no key printed');
  t.notOk(existsSync(path.join(dir, 'data')), 'DATA_DIR untouched: no key, no dataset left');
  t.same(readdirSync(dir), [], 'nothing else written beside it');
});
