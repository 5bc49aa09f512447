// `npm run bench:latency [-- --quick]`: the latency benchmark alone (npm run bench runs it too),
// printed, and its section of the report with the latency-vs-load plot in bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/paths.js';
import { benchLatency } from './lib/latency-bench.js';
import { latencySection } from './lib/latency-report.js';

const f = await benchLatency(process.argv.includes('--quick'));
const l = (x: { p50: number; p99: number; p999?: number }) =>
  `p50 ${x.p50.toFixed(2)} p99 ${x.p99.toFixed(2)}${x.p999 === undefined ? '' : ` p99.9 ${x.p999.toFixed(2)}`} ms`;
console.log(`engine ${f.engine_build}`);
const rt = f.pool_round_trip;
console.log(
  `empty pool task, ${rt.idle_gap_ms} ms idle before each: round trip ${l(rt.round_trip_ms)} (to the worker ${l(rt.to_worker_ms)}, back ${l(rt.back_ms)})`,
);
console.log(
  `writing the ${f.serialize_us.bytes}-byte answer: JSON.stringify ${f.serialize_us.json_stringify.toFixed(1)} µs, compiled serializer ${f.serialize_us.compiled.toFixed(1)} µs`,
);
const s = f.sequential;
console.log(`sequential: client ${l(s.latency_ms)}; server total ${l(s.server_total_ms!)}, engine ${l(s.server_engine_ms!)}, queue ${l(s.server_queue_ms!)}`);
console.log(`capacity (16 in flight): ${f.capacity.requests_per_s.toFixed(0)} req/s, ${l(f.capacity.latency_ms)}`);
for (const o of f.open) {
  const g = o.figures;
  console.log(
    `open loop ${(o.fraction * 100).toFixed(0)} % (${o.rate} req/s): ${l(g.latency_ms)}, sent ${g.sent}; server total ${l(g.server_total_ms!)}, queue ${l(g.server_queue_ms!)}, send lag ${l(g.send_lag_ms!)}`,
  );
}
console.log(`sequential p50 / p99 at half load: ${f.p50_over_half_load_p99.toFixed(3)}`);
const dir = path.join(ROOT, 'bench/results');
mkdirSync(dir, { recursive: true });
const stamp = `${new Date().toISOString().slice(0, 10)}${process.argv.includes('--quick') ? '-quick' : ''}`;
writeFileSync(path.join(dir, 'latest-latency.md'), latencySection(f, dir, stamp).join('\n') + '\n');
console.log('wrote bench/results/latest-latency.md and latest-latency.svg');
