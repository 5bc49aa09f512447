import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type EngineFigures } from './engine-bench.js';
import { type NumpyResult } from './numpy.js';
import { type ServiceFigures } from './service-bench.js';
import { lineChart } from './svg.js';

export interface Results {
  date: string;
  quick: boolean;
  machine: string;
  workloads: Record<string, EngineFigures & { title: string; simulations: number }>;
  numpy: Record<string, NumpyResult>;
  normals_ns?: Record<string, number>;
  scaling?: Record<'simulations' | 'horizon' | 'assets', [number, number][]>;
  workers?: Record<string, number>;
  service?: ServiceFigures;
}

interface Ratio {
  name: string;
  value: number | null;
  target: string;
  met: boolean | null;
}

export function ratios(r: Results): Ratio[] {
  const w = r.workloads;
  const ratio = (name: string, a: number | undefined, b: number | undefined, target: number, higher = true): Ratio => {
    const value = a !== undefined && b !== undefined ? a / b : null;
    return { name, value, target: `${higher ? '≥' : '≤'} ${target}`, met: value === null ? null : higher ? value >= target : value <= target };
  };
  return [
    ratio('NumPy W2 / service W2 end to end', r.numpy.W2?.median_ms, r.service?.latency_ms.W2, 3),
    ratio('WASM simd / native x86-64, the same code (W2)', w.W2?.ms['wasm-simd128'], w.W2?.ms['native-x86-64'], 1.3, false),
    ratio('WASM scalar / WASM simd (W1)', w.W1?.ms['wasm-scalar'], w.W1?.ms['wasm-simd128'], 1.5),
    ratio('plain TS / WASM simd (W1)', w.W1?.oracle?.ms, w.W1?.ms['wasm-simd128'], 5),
    ratio('NumPy normal / WASM normal (ns)', r.normals_ns?.numpy, r.normals_ns?.['wasm-simd128'], 2.5),
    ratio('1 worker / 2 workers (W2)', r.workers?.['1'], r.workers?.['2'], 1.8),
    ratio('small request p99 (ms)', r.service?.load.p99_ms, 1, 5, false),
    ratio('HTTP + pool overhead (ms)', r.service?.overhead_ms, 1, 0.3, false),
  ];
}

/** Writes <stamp>.md and the SVG plots (and latest.*); returns the Markdown. */
export function writeReport(r: Results, dir: string, stamp: string): string {
  const lines = [
    `# Benchmark report ${r.date}${r.quick ? ' (quick)' : ''}`,
    '',
    `Machine: ${r.machine}. Medians of interleaved runs; one thread unless said.`,
    '',
  ];
  lines.push(
    '## Engine, single thread (ms)',
    '',
    '| workload | sims | WASM simd | WASM scalar | native x86-64 | native host CPU | plain TS | NumPy | VaR 99 % |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const [id, f] of Object.entries(r.workloads)) {
    const n = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(1));
    lines.push(
      `| ${id} ${f.title} | ${f.simulations} | ${n(f.ms['wasm-simd128'])} | ${n(f.ms['wasm-scalar'])} | ${n(f.ms['native-x86-64'])} | ${n(f.ms.native)} | ${n(f.oracle?.ms)} | ${n(r.numpy[id]?.median_ms)} | ${f.var.toFixed(0)} |`,
    );
  }
  lines.push(
    '',
    'Plain TS times are measured on fewer simulations and scaled linearly; every build returns bit-identical results, and the VaR agrees with the plain TS and NumPy oracles within 10 %.',
  );
  lines.push('', '## Ratios', '', '| ratio | measured | target | met |', '|---|---|---|---|');
  for (const q of ratios(r))
    lines.push(`| ${q.name} | ${q.value === null ? '—' : q.value.toFixed(2)} | ${q.target} | ${q.met === null ? '—' : q.met ? 'yes' : '**no**'} |`);
  if (r.normals_ns)
    lines.push(
      '',
      `Normals (ns each): ${Object.entries(r.normals_ns)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ')}.`,
    );
  if (r.service) {
    const s = r.service;
    lines.push('', '## Service end to end (2 workers)', '', '| request | latency ms | engine ms |', '|---|---|---|');
    for (const k of Object.keys(s.latency_ms)) lines.push(`| ${k} | ${s.latency_ms[k]!.toFixed(1)} | ${s.engine_ms[k]!.toFixed(1)} |`);
    lines.push(
      '',
      `Load: ${s.load.connections} connections for ${s.load.seconds} s on the small request (10 assets × 10k × 10 d), 50 keys: ${s.load.requests_per_s.toFixed(0)} req/s, p50 ${s.load.p50_ms} ms, p99 ${s.load.p99_ms} ms, errors ${s.load.errors}, non-2xx ${s.load.non_2xx}. HTTP + pool overhead per request (latency − engine time): ${s.overhead_ms.toFixed(2)} ms.`,
    );
  }
  if (r.scaling) {
    lines.push('', '## Scaling (WASM simd, one thread)', '');
    const plots: [string, string, boolean][] = [
      ['simulations', 'simulations (W1 shape)', true],
      ['horizon', 'horizon, days (rebalanced)', false],
      ['assets', 'assets (1 day)', true],
    ];
    for (const [key, label, log] of plots) {
      const svg = lineChart(`time vs ${key}`, label, 'ms', [{ name: 'WASM simd', points: r.scaling[key as 'simulations'] }], log, log);
      writeFileSync(path.join(dir, `${stamp}-${key}.svg`), svg);
      writeFileSync(path.join(dir, `latest-${key}.svg`), svg);
      lines.push(`![${key}](latest-${key}.svg)`);
    }
    if (r.workers) lines.push('', `Workers on W2: 1 → ${r.workers['1']!.toFixed(1)} ms, 2 → ${r.workers['2']!.toFixed(1)} ms.`);
  }
  const md = lines.join('\n') + '\n';
  writeFileSync(path.join(dir, `${stamp}.md`), md);
  writeFileSync(path.join(dir, 'latest.md'), md);
  return md;
}
