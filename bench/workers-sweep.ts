// `npm run bench:workers [-- --quick] [-- --rounds 5]`: the WORKERS sweep (bench/lib/workers-sweep.ts)
// over 1, 2 and this machine's cores, printed, then bench/results/<date>-workers.{json,svg}: the
// measured speedups and Amdahl's projection from the fitted serial share, out to 64 cores.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../src/paths.js';
import { amdahl, benchWorkersSweep } from './lib/workers-sweep.js';
import { lineChart, type Series } from './lib/svg.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, rounds: { type: 'string', default: '5' } } });
const counts = [...new Set([1, 2, os.availableParallelism()])].sort((a, b) => a - b);
const rows = await benchWorkersSweep(counts, Number(values.rounds), values.quick);
for (const r of rows) {
  console.log(
    `${r.workload}: ${counts.map((c) => `${c} worker${c > 1 ? 's' : ''} ${r.ms[c]!.toFixed(0)} ms (×${r.speedup[c]!.toFixed(2)}, outside the engine ${r.outside_ms[c]!.toFixed(1)} ms)`).join('; ')}; serial share ${(100 * r.serial_share).toFixed(1)} % (${r.serial_ms.toFixed(0)} ms); projected ×${r.projected[16].toFixed(1)} at 16 cores, ×${r.projected[64].toFixed(1)} at 64`,
  );
}
const cores = [1, 2, 4, 8, 16, 32, 64];
const series: Series[] = rows.flatMap((r) => [
  { name: `${r.workload.split(' ')[0]} measured`, points: counts.map((c) => [c, r.speedup[c]!] as [number, number]) },
  { name: `${r.workload.split(' ')[0]} Amdahl`, points: cores.map((c) => [c, amdahl(r.serial_share, c)] as [number, number]) },
]);
const dir = path.join(ROOT, 'bench/results');
mkdirSync(dir, { recursive: true });
const stamp = new Date().toISOString().slice(0, 10);
writeFileSync(
  path.join(dir, `${stamp}-workers.json`),
  JSON.stringify({ date: new Date().toISOString(), quick: values.quick, load_average: os.loadavg()[0], counts, rounds: Number(values.rounds), rows }, null, 2) +
    '\n',
);
writeFileSync(
  path.join(dir, `${stamp}-workers.svg`),
  lineChart('Speedup by workers: measured and Amdahl projection', 'workers (cores)', 'speedup over 1 worker', series, true, true),
);
console.log(`wrote bench/results/${stamp}-workers.json and -workers.svg`);
