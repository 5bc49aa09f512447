// The Python example of live risk (clients/python/live_risk.py, the `websockets` package) runs
// against the real server: it subscribes, sends 200 ticks and a trade, and its last risk message
// (seq 201) has the VaR and ES of POST /calculate with the book it ends with, bit for bit.
import { execFile } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../../src/paths.js';
import { calculate, uploadFile } from '../helpers/http.js';
import { startTestService, WIDE_SAMPLE } from '../helpers/service.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (generously bounded: pip on a first run, then the client). */
function run(file: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
    execFile(file, args, { cwd: ROOT, env, timeout: 600_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

const TICKS = 200;

t.test('Python: the live risk example', async (t) => {
  const venv = await run('bash', [path.join(ROOT, 'scripts/python-live-client.sh')]);
  t.equal(venv.code, 0, 'websockets installed (needs python3 and PyPI)', { stderr: venv.stderr.slice(-2000) });
  if (venv.code !== 0) return;
  const s = await startTestService({ LIVE_MESSAGES_PER_SEC: '10000' });
  t.teardown(() => s.stop());
  const ds = (await uploadFile(s.base, s.key, WIDE_SAMPLE)).body.dataset_id as string;

  const out = await run(path.join(venv.stdout.trim(), 'python'), [path.join(ROOT, 'clients/python/live_risk.py'), s.base, s.key, ds, String(TICKS)]);
  t.equal(out.code, 0, 'exits 0', { stdout: out.stdout.slice(-2000), stderr: out.stderr.slice(-2000) });
  const lines = out.stdout.trim().split('\n');
  const last = JSON.parse(lines.at(-1)!) as { seq: number; seed: number; value_at_risk: number; expected_shortfall: number };
  t.equal(last.seq, TICKS + 1, 'the last risk includes every tick and the trade');
  t.ok(lines.length - 1 <= TICKS + 2, `${lines.length - 1} risk messages for ${TICKS + 2} states`);

  // The book it ends with: AAPL 3,000 at the last tick's price, XOM closed, JNJ 400,000.
  const r = await calculate(s.base, s.key, {
    dataset_id: ds,
    method: 'monte_carlo_normal',
    method_options: { seed: last.seed },
    currency: 'USD',
    positions: [
      { symbol: 'AAPL', market_value: 3000 * (150 + (TICKS - 1) / 2) },
      { symbol: 'XOM', market_value: 0 },
      { symbol: 'JNJ', market_value: 400_000 },
    ],
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 20_000,
  });
  t.equal(r.status, 200, r.text.slice(0, 300));
  t.equal(last.value_at_risk, r.body.meta.metrics.value_at_risk, 'VaR of calculate, bit for bit');
  t.equal(last.expected_shortfall, r.body.meta.metrics.expected_shortfall, 'ES of calculate, bit for bit');
});
