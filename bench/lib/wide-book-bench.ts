// A wide book end to end: `assets` symbols × `dates` daily prices generated here (three factors and
// idiosyncratic noise), uploaded to the real service (2 workers), then the first calculate — the
// estimation included — and a second on the cached estimate, timed from the client; NumPy doing the
// same from the same prices the way a desk writes it (np.cov, Cholesky with jitter, z @ Lᵀ) on the
// same two cores. With no more returns than assets the service samples through the window's
// loadings (`meta.estimation.sampling` says so); NumPy factors the singular n×n covariance.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../test/helpers/service.js';
import { ensureNumpy, runNumpyWide, type NumpyWideResult } from './numpy.js';
import { startBenchService } from './service-bench.js';
import { median } from './stats.js';
import { inCi } from './ci.js';

export interface WideBookFigures {
  assets: number;
  dates: number;
  simulations: number;
  sampling: string;
  /** Client-measured: the first calculate after the upload (estimation included), and one cached. */
  first_ms: number;
  cached_ms: number;
  var: number;
  numpy: NumpyWideResult | null;
  /** NumPy's time from prices / the service's first calculate: the median of the rounds' ratios. */
  numpy_over_first: number | null;
}

interface Meta {
  meta: { estimation: { sampling: string }; metrics: { value_at_risk: number } };
}

/** Prices [date][asset] of a seeded three-factor model, the first date 100 for every asset. */
export function factorPrices(assets: number, dates: number, seed = 20261122): number[][] {
  let state = seed >>> 0;
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const loadings = Array.from({ length: assets }, () => [0.5 + rand(), rand() - 0.5, rand() - 0.5]);
  const idio = Array.from({ length: assets }, () => 0.008 + 0.012 * rand());
  const rows = [new Array<number>(assets).fill(100)];
  for (let d = 1; d < dates; d++) {
    const f = [normal() * 0.01, normal() * 0.006, normal() * 0.004];
    const prev = rows[d - 1]!;
    rows.push(prev.map((p, i) => p * Math.exp(loadings[i]![0]! * f[0]! + loadings[i]![1]! * f[1]! + loadings[i]![2]! * f[2]! + idio[i]! * normal())));
  }
  return rows;
}

function toCsv(prices: number[][]): string {
  const assets = prices[0]!.length;
  const day = new Date(Date.UTC(2020, 0, 1));
  const lines = [['date', ...Array.from({ length: assets }, (_, i) => `W${String(i).padStart(4, '0')}`)].join(',')];
  for (const row of prices) {
    lines.push([day.toISOString().slice(0, 10), ...row.map((p) => p.toPrecision(10))].join(','));
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return lines.join('\n') + '\n';
}

/** The figures of one wide book; `rounds` uploads (each a fresh dataset, so a fresh estimate) alternating with NumPy, medians. */
export async function benchWideBook(assets: number, dates: number, simulations: number, rounds: number): Promise<WideBookFigures> {
  // NumPy alternates with the service round by round, so that a busy moment lands on both. Without
  // NumPy the answer cannot be checked: a failure in CI, a skipped comparison elsewhere.
  const numpy = ensureNumpy();
  if (!numpy && inCi()) throw new Error('wide book: NumPy is missing in CI; the floor cannot be measured');
  const prices = factorPrices(assets, dates);
  const dir = tempDir('risk-wide-');
  const file = path.join(dir, 'wide.csv');
  writeFileSync(file, toCsv(prices));
  // 5,000 symbols × 1,260 dates is about 70 MB of CSV: above the default upload limit of 50 MB.
  const svc = await startBenchService({
    WORKERS: '2',
    RATE_LIMIT_CALCULATE_PER_MIN: '100000',
    RATE_LIMIT_UPLOAD_PER_MIN: '1000',
    MAX_UPLOAD_BYTES: String(256 << 20),
  });
  const first: number[] = [];
  const cached: number[] = [];
  const numpyRuns: NumpyWideResult[] = [];
  const ratios: number[] = [];
  let meta: Meta['meta'] | null = null;
  try {
    const post = async (datasetId: string) => {
      const body = JSON.stringify({
        dataset_id: datasetId,
        method: 'monte_carlo_normal',
        method_options: { seed: 1 },
        portfolio_value: 1_000_000,
        currency: 'USD',
        portfolio: Array.from({ length: assets }, (_, i) => ({ symbol: `W${String(i).padStart(4, '0')}`, weight: 1 / assets })),
        confidence_level: 0.99,
        time_horizon: 1,
        simulations,
      });
      const start = performance.now();
      const r = await fetch(`${svc.base}/api/v1/risk/calculate`, {
        method: 'POST',
        headers: { 'X-API-Key': svc.keys[0]!, 'Content-Type': 'application/json' },
        body,
      });
      const json = (await r.json()) as Meta;
      if (r.status !== 200) throw new Error(`calculate ${r.status}: ${JSON.stringify(json).slice(0, 300)}`);
      meta = json.meta;
      return performance.now() - start;
    };
    for (let i = 0; i < rounds; i++) {
      const id = await svc.upload(file);
      first.push(await post(id));
      cached.push(await post(id));
      if (!numpy) continue;
      const run = runNumpyWide(prices, simulations, 1, 2);
      // NumPy held this thread (spawnSync) past the service's idle timeout: let the loop see the
      // connection it closed meanwhile, or the next upload is written into it (EPIPE, measured).
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Other draws and NumPy's jittered factor: the same model, so the same VaR within a few of its
      // standard errors (about 1.5 % at 10,000 simulations): a fast wrong engine fails here.
      const got = (meta as Meta['meta'] | null)?.metrics.value_at_risk ?? NaN;
      if (!(Math.abs(got / run.var - 1) < 0.1)) throw new Error(`wide book: VaR ${got} against NumPy's ${run.var}`);
      numpyRuns.push(run);
      ratios.push(run.median_ms / first[i]!);
    }
  } finally {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const numpyFigures = numpy ? { ...numpyRuns[0]!, median_ms: median(numpyRuns.map((r) => r.median_ms)) } : null;
  const m = meta as Meta['meta'] | null;
  return {
    assets,
    dates,
    simulations,
    sampling: m?.estimation.sampling ?? 'unknown',
    first_ms: median(first),
    cached_ms: median(cached),
    var: m?.metrics.value_at_risk ?? NaN,
    numpy: numpyFigures,
    numpy_over_first: numpy ? median(ratios) : null,
  };
}
