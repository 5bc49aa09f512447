// The WORKERS sweep (issue 34): the same requests through services with 1, 2, … workers (every
// service up at once, the rounds alternating between them so each meets the same load), each
// answer first checked identical across worker counts. From the times: the speedup, the serial
// share by Amdahl's law fitted to the widest pool, s = (N·T_N / T_1 − 1) / (N − 1), the serial time
// s·T_1, the time the main thread spends outside the engine (meta.timing_ms: total − engine), and
// the projected speedup 1 / (s + (1 − s) / P) at 16 and 64 cores.
import { readFileSync } from 'node:fs';
import { generateWide461 } from '../../test/helpers/generate-prices.js';
import { BATCH_SIMULATIONS, BATCH_SYMBOLS, batchBooks } from './batch-bench.js';
import { calculateBody, postCalculate, startBenchService, type BenchService } from './service-bench.js';
import { median } from './stats.js';

export interface SweepRow {
  workload: string;
  /** Median ms per worker count. */
  ms: Record<number, number>;
  /** Median ms outside the engine (total − engine) per worker count. */
  outside_ms: Record<number, number>;
  speedup: Record<number, number>;
  serial_share: number;
  serial_ms: number;
  projected: { 16: number; 64: number };
}

interface Answer {
  meta: { timing_ms: { engine: number; total: number }; calculation_id?: string };
}

export const amdahl = (share: number, cores: number) => 1 / (share + (1 - share) / cores);

/** The serial share that Amdahl's law gives for time `tN` on `n` workers against `t1` on one (clamped to [0, 1]). */
export const serialShare = (t1: number, tN: number, n: number) => Math.min(1, Math.max(0, (n * (tN / t1) - 1) / (n - 1)));

/** Figures of an answer that must not depend on the worker count (ids and timings left out). */
const figures = (text: string) =>
  text
    .replace(/"calculation_id":"[^"]*",?/g, '')
    .replace(/"timing_ms":\{[^}]*\},?/g, '')
    .replace(/"engine":\{[^}]*\},?/g, '');

/** The sweep's requests over dataset `wide` (the 461-asset file): route and body by workload name. */
function workloadsOver(wide: string, symbols: string[], quick: boolean): Record<string, { route: string; body: string }> {
  return {
    'W2 (20 × 1M × 10 d)': { route: '', body: calculateBody(wide, symbols.slice(0, 20), quick ? 200_000 : 1_000_000) },
    '461 assets × 100k × 10 d': { route: '', body: calculateBody(wide, symbols, quick ? 20_000 : 100_000) },
    '100-book batch (20 symbols × 100k)': {
      route: '/batch',
      body: JSON.stringify({
        dataset_id: wide,
        method: 'monte_carlo_normal',
        method_options: { seed: 20240611 },
        currency: 'USD',
        confidence_level: 0.99,
        time_horizon: 10,
        simulations: BATCH_SIMULATIONS,
        books: batchBooks(symbols.slice(0, BATCH_SYMBOLS)),
      }),
    },
  };
}

export async function benchWorkersSweep(counts: number[], rounds: number, quick: boolean): Promise<SweepRow[]> {
  const services: { workers: number; svc: BenchService; wide: string; workloads: ReturnType<typeof workloadsOver> }[] = [];
  const file = generateWide461();
  const wideSymbols = readFileSync(file, 'utf8').slice(0, 16_000).split('\n')[0]!.split(',').slice(1);
  try {
    for (const workers of counts) {
      const svc = await startBenchService({
        WORKERS: String(workers),
        RATE_LIMIT_CALCULATE_PER_MIN: '1000000',
        RATE_LIMIT_BATCH_PER_MIN: '1000000',
        RATE_LIMIT_UPLOAD_PER_MIN: '1000',
        MAX_QUEUE: '1000',
      });
      const wide = await svc.upload(file);
      services.push({ workers, svc, wide, workloads: workloadsOver(wide, wideSymbols, quick) });
    }
    const post = async (s: (typeof services)[number], name: string) => {
      const w = s.workloads[name]!;
      const { text, ms } = await postCalculate(s.svc, w.route, w.body, 'workers sweep');
      const timing = (JSON.parse(text) as Answer).meta.timing_ms;
      return { ms, outside: timing.total - timing.engine, text };
    };
    const rows: SweepRow[] = [];
    for (const name of Object.keys(services[0]!.workloads)) {
      const times = new Map<number, number[]>(counts.map((c) => [c, []]));
      const outside = new Map<number, number[]>(counts.map((c) => [c, []]));
      // A warm-up per service (estimation cached, workers tiered up), whose answers must agree.
      const answers = new Set<string>();
      for (const s of services) answers.add(figures((await post(s, name)).text.replaceAll(s.wide, 'ds')));
      if (answers.size !== 1) throw new Error(`workers sweep: ${name} answers differ between worker counts`);
      for (let r = 0; r < rounds; r++) {
        // Alternating order, so neither pool always runs first in a round.
        for (const s of r % 2 === 0 ? services : [...services].reverse()) {
          const run = await post(s, name);
          times.get(s.workers)!.push(run.ms);
          outside.get(s.workers)!.push(run.outside);
        }
      }
      const ms = Object.fromEntries(counts.map((c) => [c, median(times.get(c)!)]));
      const widest = Math.max(...counts);
      const share = serialShare(ms[1]!, ms[widest]!, widest);
      rows.push({
        workload: name,
        ms,
        outside_ms: Object.fromEntries(counts.map((c) => [c, median(outside.get(c)!)])),
        speedup: Object.fromEntries(counts.map((c) => [c, ms[1]! / ms[c]!])),
        serial_share: share,
        serial_ms: share * ms[1]!,
        projected: { 16: amdahl(share, 16), 64: amdahl(share, 64) },
      });
    }
    return rows;
  } finally {
    for (const s of services) await s.svc.stop();
  }
}
