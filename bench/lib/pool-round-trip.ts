// What handing a task to the engine pool costs on this machine, without any engine work: an empty
// task sent to a Piscina pool set up as the service's (two threads, synchronous atomics), one at a
// time with an idle gap before each, as a desk's sparse small requests meet it. The idle gap lets
// the worker fall asleep, so each task pays its wake-up: the floor under the server's
// `timing_ms.queue` and the part of its total no engine speed-up can remove.
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { absoluteNow } from '../../src/engine/ops.js';
import { workerThreads } from '../../src/pool/engine-pool.js';
import { tailSummary, type TailSummary } from './stats.js';

const ECHO_WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), '../pool-echo-worker.js');

export interface RoundTripFigures {
  tasks: number;
  idle_gap_ms: number;
  /** Submit to reply, submit to the worker starting it, and the worker's start to the reply (ms). */
  round_trip_ms: Quantiles;
  to_worker_ms: Quantiles;
  back_ms: Quantiles;
}

type Quantiles = Omit<TailSummary, 'max'>;

function quantiles(xs: number[]): Quantiles {
  const { p50, p99, p999 } = tailSummary(xs);
  return { p50, p99, p999 };
}

export async function benchPoolRoundTrip(tasks: number, idleGapMs = 2): Promise<RoundTripFigures> {
  const pool = new Piscina({ filename: ECHO_WORKER, ...workerThreads(2) });
  try {
    const total: number[] = [];
    const there: number[] = [];
    const back: number[] = [];
    for (let i = 0; i < tasks + 50; i++) {
      await sleep(idleGapMs);
      const sent = absoluteNow();
      const started = (await pool.run(null)) as number;
      const done = absoluteNow();
      if (i < 50) continue; // warm-up: threads started, code tiered up
      total.push(done - sent);
      there.push(started - sent);
      back.push(done - started);
    }
    return { tasks, idle_gap_ms: idleGapMs, round_trip_ms: quantiles(total), to_worker_ms: quantiles(there), back_ms: quantiles(back) };
  } finally {
    await pool.destroy();
  }
}
