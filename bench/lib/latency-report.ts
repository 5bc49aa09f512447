import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type LatencyFigures } from './latency-bench.js';
import { SERIALIZE_ROUNDS } from './serialize-bench.js';
import { lineChart } from './svg.js';

/** The latency section of the report, and its latency-vs-load plot (<stamp>-latency.svg, latest-latency.svg). */
export function latencySection(f: LatencyFigures, dir: string, stamp: string): string[] {
  const ms = (x: number) => x.toFixed(2);
  const svg = lineChart(
    'small request: latency vs offered load (open loop)',
    'offered load, % of capacity',
    'ms',
    (['p50', 'p99', 'p999'] as const).map((q) => ({
      name: q === 'p999' ? 'p99.9' : q,
      points: f.open.map((o) => [o.fraction * 100, o.figures.latency_ms[q]] as [number, number]),
    })),
  );
  writeFileSync(path.join(dir, `${stamp}-latency.svg`), svg);
  writeFileSync(path.join(dir, 'latest-latency.svg'), svg);
  const s = f.sequential;
  return [
    '',
    '## Latency of a small request (10 assets × 10,000 simulations × 10 days)',
    '',
    `The real service (2 workers, ${f.engine_build}); the load generator is a separate process on the same machine. Sequential: ${s.sent} requests one at a time. Capacity: 16 requests in flight for ${f.capacity.seconds.toFixed(0)} s. Open loop: requests sent on a fixed schedule at a fraction of that capacity whatever the answers, each latency counted from its scheduled send time.`,
    '',
    '| | requests | req/s | p50 ms | p99 ms | p99.9 ms | max ms |',
    '|---|---|---|---|---|---|---|',
    `| sequential, client | ${s.sent} | ${s.requests_per_s.toFixed(0)} | ${ms(s.latency_ms.p50)} | ${ms(s.latency_ms.p99)} | ${ms(s.latency_ms.p999)} | ${ms(s.latency_ms.max)} |`,
    `| sequential, server \`timing_ms.total\` | | | ${ms(s.server_total_ms!.p50)} | ${ms(s.server_total_ms!.p99)} | | |`,
    `| sequential, server \`timing_ms.engine\` | | | ${ms(s.server_engine_ms!.p50)} | ${ms(s.server_engine_ms!.p99)} | | |`,
    `| sequential, server \`timing_ms.queue\` | | | ${ms(s.server_queue_ms!.p50)} | ${ms(s.server_queue_ms!.p99)} | | |`,
    `| capacity, 16 in flight | ${f.capacity.sent} | **${f.capacity.requests_per_s.toFixed(0)}** | ${ms(f.capacity.latency_ms.p50)} | ${ms(f.capacity.latency_ms.p99)} | ${ms(f.capacity.latency_ms.p999)} | ${ms(f.capacity.latency_ms.max)} |`,
    ...f.open.map(
      (o) =>
        `| open loop, ${(o.fraction * 100).toFixed(0)} % of capacity | ${o.figures.sent} | ${o.rate} | ${ms(o.figures.latency_ms.p50)} | ${ms(o.figures.latency_ms.p99)} | ${ms(o.figures.latency_ms.p999)} | ${ms(o.figures.latency_ms.max)} |`,
    ),
    '',
    "Where the open loop's time goes (p50 / p99, ms): the client's latency, the server's own `timing_ms.total` (parsed request to built answer) and its wait for a worker (`timing_ms.queue`), and how late the generator sent after the scheduled time. What the client sees beyond the server's total is the socket, the event loops and the serialisation on both sides.",
    '',
    '| open loop | client | server total | server queue | send lag |',
    '|---|---|---|---|---|',
    ...f.open.map((o) => {
      const pair = (x: { p50: number; p99: number } | undefined) => (x ? `${ms(x.p50)} / ${ms(x.p99)}` : '');
      return `| ${(o.fraction * 100).toFixed(0)} % of capacity | ${pair(o.figures.latency_ms)} | ${pair(o.figures.server_total_ms)} | ${pair(o.figures.server_queue_ms)} | ${pair(o.figures.send_lag_ms)} |`;
    }),
    '',
    `The hand-off alone: an empty task through a pool set up as the service's (2 threads, synchronous atomics), ${f.pool_round_trip.tasks} tasks one at a time, ${f.pool_round_trip.idle_gap_ms} ms idle before each so that the worker sleeps as between a desk's sparse requests (p50 / p99 / p99.9, ms):`,
    '',
    '| empty task | p50 | p99 | p99.9 |',
    '|---|---|---|---|',
    ...(
      [
        ['submit → worker starts', f.pool_round_trip.to_worker_ms],
        ['worker → reply received', f.pool_round_trip.back_ms],
        ['round trip', f.pool_round_trip.round_trip_ms],
      ] as const
    ).map(([name, q]) => `| ${name} | ${ms(q.p50)} | ${ms(q.p99)} | ${ms(q.p999)} |`),
    '',
    `Writing the answer (${f.serialize_us.bytes} bytes, after \`timing_ms.total\`): ${f.serialize_us.json_stringify.toFixed(1)} µs with JSON.stringify, ${f.serialize_us.compiled.toFixed(1)} µs with the serializer compiled from the response schema (what the service uses), medians of ${SERIALIZE_ROUNDS} interleaved rounds, each writing answers of their own (figures moved in the last digits; one answer written over and over measures V8's cache of number strings instead).`,
    '',
    '![latency vs load](latest-latency.svg)',
  ];
}
