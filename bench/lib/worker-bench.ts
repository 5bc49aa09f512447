// A calculation on a real worker pool with 1 worker against 2, and the wall-clock spans of the
// tasks each pool ran, so that a "split" whose parts ran one after the other is seen for what it is.
import { resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { absoluteNow, type AnswerMemory, type EngineExecutor, type EngineInput, type EngineReply, type OpCode } from '../../src/engine/ops.js';
import { EnginePool } from '../../src/pool/engine-pool.js';
import { runModel } from '../../src/risk/engine-run.js';
import { interleaved, median, pairedRatio } from './stats.js';
import { sameBits } from './same-bits.js';
import { type PreparedWorkload } from './workloads.js';

export interface Span {
  op: OpCode;
  start: number;
  end: number;
}

/** An executor that records when each task ran on its worker (and the last output, for bit checks). */
export class TimedExecutor implements EngineExecutor {
  spans: Span[] = [];
  lastOutput: Float64Array | null = null;
  constructor(private readonly inner: EngineExecutor) {}

  async run(op: OpCode, input: EngineInput, signal?: AbortSignal, lead?: Float64Array, answer?: AnswerMemory): Promise<EngineReply> {
    const submitted = absoluteNow();
    const reply = await this.inner.run(op, input, signal, lead, answer);
    // The worker measured its wait and its run; its start is the submission plus the wait.
    const start = submitted + reply.queueMs;
    this.spans.push({ op, start, end: start + reply.computeMs });
    this.lastOutput = reply.output;
    return reply;
  }
}

/**
 * How much of the shorter of the `op` tasks overlapped the others in time: 1 = wholly concurrent,
 * ≤ 0 = one after the other. NaN when fewer than two ran.
 */
export function overlap(spans: Span[], op: OpCode): number {
  const parts = spans.filter((s) => s.op === op);
  if (parts.length < 2) return NaN;
  const common = Math.min(...parts.map((s) => s.end)) - Math.max(...parts.map((s) => s.start));
  return common / Math.min(...parts.map((s) => s.end - s.start));
}

export interface WorkerSplitFigures {
  one_ms: number;
  two_ms: number;
  /** Time on 1 worker / time on 2 (higher is better; 2 at most). */
  one_over_two: number;
  /** The median over the rounds of the two simulation halves' overlap (see `overlap`). */
  overlap: number;
  /** The whole calculation twice at once on the 2-worker pool, one task each: nothing split or merged. */
  pair_ms: number;
  /**
   * What this machine's two cores give on this very work: two whole calculations' time on 1 worker
   * (2 · one) / their time side by side (pair), within each round, the median. 2 on two free cores;
   * about 1 where two vCPUs share one core's throughput.
   */
  machine_ceiling: number;
  /**
   * one_over_two / machine_ceiling within each round (= pair / (2 · two)), the median: the part of
   * the machine's ceiling the split reaches, about 1 at best. The split's own cost (its serial
   * finalize, its copies, uneven halves) lowers it whatever the hardware.
   */
  of_ceiling: number;
  /** The median over the rounds of the two whole calculations' overlap. */
  pair_overlap: number;
}

/**
 * `p` through runModel on a pool of `threads[0]` WASM workers and one of `threads[1]` (batches =
 * workers, each ≥ 64 blocks), in interleaved rounds, medians. Both pools must give the same bits.
 * A third arm runs the whole calculation twice at once on the second pool, which measures the
 * machine's own ceiling for two workers on the same work.
 */
export async function benchWorkerSplit(p: PreparedWorkload, repeats: number, threads: [number, number] = [1, 2]): Promise<WorkerSplitFigures> {
  const source = resolveEngineSource('wasm');
  const pools = threads.map((n) => new EnginePool(source, n, 64));
  try {
    const [one, two] = pools.map((pool) => new TimedExecutor(pool)) as [TimedExecutor, TimedExecutor];
    // Batches of ≥ 64 blocks, so that the quick W2 still splits in two; 2 batches in the second arm
    // whatever its pool, so that a pool that runs them one after the other is measured as such.
    const run = (exec: TimedExecutor, batches: number) => () => runModel(exec, p.model, p.estimation, { maxBatches: batches, minBlocksPerBatch: 64 });
    const overlaps: number[] = [];
    const timedTwo = async () => {
      two.spans = [];
      const r = await run(two, 2)();
      overlaps.push(overlap(two.spans, ABI.OP_SIMULATE_OWN_TAILS));
      return r;
    };
    // Each of the pair on its own executor over the 2-worker pool: both answers are checked.
    const pairs = [new TimedExecutor(pools[1]!), new TimedExecutor(pools[1]!)] as const;
    const pairOverlaps: number[] = [];
    const pair = async () => {
      for (const e of pairs) e.spans = [];
      const [r] = await Promise.all(pairs.map((e) => run(e, 1)()));
      pairOverlaps.push(overlap([...pairs[0].spans, ...pairs[1].spans], ABI.OP_RUN));
      return r;
    };
    await run(one, 1)();
    await timedTwo();
    if (!sameBits(one.lastOutput!, two.lastOutput!)) throw new Error(`${p.workload.id}: 2 workers' answer differs from 1 worker's`);
    if (two.spans.filter((s) => s.op === ABI.OP_SIMULATE_OWN_TAILS).length !== 2) throw new Error(`${p.workload.id} did not split over two workers`);
    await pair();
    if (!pairs.every((e) => sameBits(one.lastOutput!, e.lastOutput!)))
      throw new Error(`${p.workload.id}: a whole calculation on the 2-worker pool differs from 1 worker's`);
    overlaps.length = pairOverlaps.length = 0;
    const { ms, samples } = await interleaved({ one: run(one, 1), two: timedTwo, pair }, repeats);
    return {
      one_ms: ms.one!,
      two_ms: ms.two!,
      one_over_two: ms.one! / ms.two!,
      overlap: median(overlaps),
      pair_ms: ms.pair!,
      machine_ceiling: 2 * pairedRatio(samples, 'one', 'pair'),
      of_ceiling: pairedRatio(samples, 'pair', 'two') / 2,
      pair_overlap: median(pairOverlaps),
    };
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
