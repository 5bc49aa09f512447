import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { type EngineSource } from '../engine/load.js';
import { absoluteNow, ExecutorBusyError, type AnswerMemory, type EngineExecutor, type EngineInput, type EngineReply, type OpCode } from '../engine/ops.js';
import { type EngineTask, type EngineWorkerData } from '../worker/messages.js';

const WORKER_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../worker/engine-worker.js');

/** The pool's threads: a fixed count kept alive, one task at a time each, woken by Atomics.wait. */
export function workerThreads(count: number) {
  return { minThreads: count, maxThreads: count, idleTimeout: 24 * 3600 * 1000, concurrentTasksPerWorker: 1, atomics: 'sync' as const };
}

/** The engine on a fixed pool of worker threads, with at most `maxQueue` tasks waiting. */
export class EnginePool implements EngineExecutor {
  private readonly pool: Piscina;
  private outstanding = 0;
  private closing = false;
  private workersStarted = 0;

  constructor(
    source: EngineSource,
    private readonly threadCount: number,
    private readonly maxQueue: number,
  ) {
    const workerData: EngineWorkerData = { source };
    this.pool = new Piscina({
      filename: WORKER_FILE,
      ...workerThreads(threadCount),
      // Admission is ours (below); Piscina's own queue never refuses what we admitted.
      maxQueue: Infinity,
      // A runaway task ends its own thread (ERR_WORKER_OUT_OF_MEMORY), not the process.
      resourceLimits: { maxOldGenerationSizeMb: 1024 },
      workerData,
    });
    this.pool.on('workerCreate', () => this.workersStarted++);
  }

  /** Workers started to replace one that ended (a crash, an out-of-memory task), so far. */
  get workerRestarts(): number {
    return Math.max(0, this.workersStarted - this.threadCount);
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /** Tasks submitted and not yet finished (running or waiting). */
  get inFlight(): number {
    return this.outstanding;
  }

  /** Tasks submitted and not yet started. */
  get queueSize(): number {
    return Math.max(0, this.outstanding - this.threadCount);
  }

  async run(
    op: OpCode,
    input: EngineInput,
    signal?: AbortSignal,
    lead?: Float64Array,
    answer: AnswerMemory = 'own',
    sums?: Float64Array,
  ): Promise<EngineReply> {
    // Admission is decided here, by our own count, synchronously: a burst cannot overshoot the
    // bound, and a closing pool takes nothing more.
    if (this.closing) throw new ExecutorBusyError('the engine pool is closing');
    if (this.outstanding >= this.threadCount + this.maxQueue) throw new ExecutorBusyError('the engine queue is full');
    this.outstanding++;
    const posted = input instanceof Float64Array ? ownRange(input) : input.map(ownRange);
    const postedLead = lead && ownRange(lead);
    const task: EngineTask = {
      op,
      input: posted,
      submittedAt: absoluteNow(),
      ...(postedLead ? { lead: postedLead } : {}),
      ...(answer === 'shared' ? { shared: true } : {}),
      ...(sums ? { sums } : {}),
    };
    // A lead copied to its own range here is this task's alone: it moves too.
    const transferList = transferable(posted).concat(postedLead && postedLead !== lead ? [postedLead.buffer as ArrayBuffer] : []);
    try {
      return (await this.pool.run(task, { signal: signal ?? null, transferList })) as EngineReply;
    } finally {
      this.outstanding--;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.pool.close();
  }
}

/**
 * `p` as posted to a worker: shared memory and a buffer's whole view as they are, and a view into
 * part of a larger buffer copied to its own (posting the view would clone the whole buffer: an
 * estimation's returns are a third of its answer, which its vectors view).
 */
function ownRange(p: Float64Array): Float64Array {
  return viewsWholeBuffer(p) || p.buffer instanceof SharedArrayBuffer ? p : p.slice();
}

/** Whether `p` views the whole of its buffer (which can then move to a worker as it is). */
function viewsWholeBuffer(p: Float64Array): boolean {
  return p.byteOffset === 0 && p.byteLength === p.buffer.byteLength;
}

/**
 * The buffers of the input's parts that are each their buffer's whole view, each once: those move to
 * the worker (a part copied to its own range by `ownRange` among them). Memory shared between
 * threads is posted as it is.
 */
function transferable(input: EngineInput): ArrayBuffer[] {
  const parts = input instanceof Float64Array ? [input] : input;
  const buffers = new Set<ArrayBuffer>();
  for (const p of parts) if (viewsWholeBuffer(p) && !(p.buffer instanceof SharedArrayBuffer)) buffers.add(p.buffer as ArrayBuffer);
  return [...buffers];
}
