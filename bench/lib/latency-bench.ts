// A desk's small request (10 assets × 10,000 simulations × 10 days) through the real service:
// sequential latency (client and the server's own total), capacity (16 in flight), then open-loop
// load at fixed fractions of that capacity, the generator in a process of its own.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../src/paths.js';
import { type LoadFigures, type LoadPlan } from '../load-client.js';
import { calculateBody, SAMPLE_SYMBOLS, startBenchService } from './service-bench.js';
import { median } from './stats.js';
import { benchPoolRoundTrip, type RoundTripFigures } from './pool-round-trip.js';
import { serializeTimes, type SerializeFigures } from './serialize-bench.js';
import { type CalculateResponseBody } from '../../src/contract/responses.js';

const run = promisify(execFile);

export interface LatencyFigures {
  engine_build: string;
  sequential: LoadFigures;
  capacity: LoadFigures;
  /** Open loop at these fractions of the measured capacity. */
  open: { fraction: number; rate: number; figures: LoadFigures }[];
  /** Open-loop p99 at half of capacity in HALF_LOAD_RUNS runs (the first is `open`'s). */
  half_load_p99_ms: number[];
  /** sequential client p50 / the median of half_load_p99_ms: higher is a flatter tail. */
  p50_over_half_load_p99: number;
  /** An empty task through a pool set up as the service's, idle before each: the hand-off alone. */
  pool_round_trip: RoundTripFigures;
  /** µs to write the small request's answer: JSON.stringify and the compiled serializer (medians). */
  serialize_us: SerializeFigures;
}

/** Runs at half of capacity whose median p99 the ratio uses: one run's p99 is a handful of requests. */
const HALF_LOAD_RUNS = 3;

export const LOAD_FRACTIONS = [0.25, 0.5, 0.75] as const;

/** One run of the load generator in a process of its own; any failed request stops the benchmark. */
export async function runLoad(plan: LoadPlan): Promise<LoadFigures> {
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'dist/bench/load-client.js'), JSON.stringify(plan)], { maxBuffer: 1 << 20 });
  const figures = JSON.parse(stdout) as LoadFigures;
  if (figures.failed > 0) throw new Error(`${plan.mode} load: ${figures.failed} of ${figures.sent} requests failed: ${JSON.stringify(figures.failures)}`);
  return figures;
}

export async function benchLatency(quick: boolean, workers = 2): Promise<LatencyFigures> {
  const poolRoundTrip = await benchPoolRoundTrip(quick ? 500 : 3000);
  const svc = await startBenchService({ WORKERS: String(workers), RATE_LIMIT_CALCULATE_PER_MIN: '1000000', MAX_QUEUE: '10000' });
  try {
    const dataset = await svc.upload(path.join(ROOT, 'examples/prices_wide_sample.csv'));
    const body = calculateBody(dataset, SAMPLE_SYMBOLS, 10_000);
    const plan = { url: `${svc.base}/api/v1/risk/calculate`, key: svc.keys[0]!, body };
    const first = await fetch(plan.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': plan.key }, body });
    const answer = (await first.json()) as CalculateResponseBody;
    const engineBuild = answer.meta.engine.build;
    const serialize = serializeTimes(answer, quick ? 500 : 2_000);
    await runLoad({ ...plan, mode: 'sequential', count: 50 }); // warm: estimate cached, workers tiered up
    const sequential = await runLoad({ ...plan, mode: 'sequential', count: quick ? 200 : 1000 });
    const seconds = quick ? 4 : 15;
    const capacity = await runLoad({ ...plan, mode: 'closed', concurrency: 16, seconds });
    const open = [];
    for (const fraction of LOAD_FRACTIONS) {
      const rate = Math.max(1, Math.round(capacity.requests_per_s * fraction));
      open.push({ fraction, rate, figures: await runLoad({ ...plan, mode: 'open', rate, seconds }) });
    }
    const half = open.find((o) => o.fraction === 0.5)!;
    const halfP99 = [half.figures.latency_ms.p99];
    while (halfP99.length < HALF_LOAD_RUNS) halfP99.push((await runLoad({ ...plan, mode: 'open', rate: half.rate, seconds })).latency_ms.p99);
    return {
      engine_build: engineBuild,
      sequential,
      capacity,
      open,
      half_load_p99_ms: halfP99,
      p50_over_half_load_p99: sequential.latency_ms.p50 / median(halfP99),
      pool_round_trip: poolRoundTrip,
      serialize_us: serialize,
    };
  } finally {
    await svc.stop();
  }
}
