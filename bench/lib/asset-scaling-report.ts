import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type PathScaling } from './asset-scaling-bench.js';
import { lineChart, type Series } from './svg.js';

export type { PathScaling };

const LABEL = { cholesky: 'Cholesky', low_rank: 'low rank' } as const;

/** The report's lines on time against assets for both paths, and its plot (written beside it). */
export function assetScalingSection(paths: PathScaling[], dir: string, stamp: string): string[] {
  const sims = paths[0]!.simulations.toLocaleString('en-US');
  const lines = [
    '',
    `## Time against assets, both sampling paths (WASM simd, one thread; NumPy on one BLAS thread from the same prices)`,
    '',
    `Prices of a seeded three-factor model; estimation from prices, then ${sims} simulations × 1 day at 99 % of the equal-weight book. The Cholesky path on ${paths.find((p) => p.path === 'cholesky')?.returns.toLocaleString('en-US') ?? '—'} returns, the low-rank path on ${paths.find((p) => p.path === 'low_rank')?.returns.toLocaleString('en-US') ?? '—'} (the rule: low rank when returns ≤ assets). NumPy does what a desk writes (np.cov, Cholesky jittered when singular, z @ Lᵀ) on both. Medians; one run from 2,000 assets.`,
    '',
    '| path | assets | estimate ms | simulate ms | engine total ms | NumPy ms | NumPy / engine | VaR engine | VaR NumPy |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const p of paths)
    for (const q of p.points)
      lines.push(
        `| ${LABEL[p.path]} | ${q.assets} | ${q.estimate_ms.toFixed(0)} | ${q.simulate_ms.toFixed(0)} | ${q.total_ms.toFixed(0)} | ${q.numpy_ms?.toFixed(0) ?? '—'} | ${q.numpy_ms === null ? '—' : (q.numpy_ms / q.total_ms).toFixed(2)} | ${q.var.toFixed(0)} | ${q.numpy_var?.toFixed(0) ?? '—'} |`,
      );
  const blas = paths.find((p) => p.numpy_blas)?.numpy_blas;
  if (blas) lines.push('', `NumPy's BLAS (threadpoolctl): \`${JSON.stringify(blas)}\``);
  const series: Series[] = paths.flatMap((p) => [
    { name: `${LABEL[p.path]}, engine`, points: p.points.map((q): [number, number] => [q.assets, q.total_ms]) },
    ...(p.points.some((q) => q.numpy_ms !== null)
      ? [{ name: `NumPy, ${p.returns} returns`, points: p.points.filter((q) => q.numpy_ms !== null).map((q): [number, number] => [q.assets, q.numpy_ms!]) }]
      : []),
  ]);
  const svg = lineChart('time vs assets, both paths', 'assets', 'ms', series, true, true);
  writeFileSync(path.join(dir, `${stamp}-asset-paths.svg`), svg);
  writeFileSync(path.join(dir, 'latest-asset-paths.svg'), svg);
  lines.push('', '![time vs assets, both paths](latest-asset-paths.svg)');
  return lines;
}
