import { type Ticket, type WorkAdmission } from './admission.js';
import { calculationFailure } from './failures.js';
import { allFinite } from './failures.js';
import { type PhaseTiming } from './phase-timing.js';

/** What `underDeadline` needs of the calculator: the compute deadline per request. */
export interface DeadlineSettings {
  timeoutMs: number;
  /** Admission by estimated work (absent: every calculation is admitted, as in the engine tests). */
  admission?: WorkAdmission;
}

/**
 * A calculation's estimated work for admission (see admission.ts), and whether its measured time
 * may teach the cost model: only single calculations, whose tasks the session's timing counts.
 */
export interface WorkCost {
  units: number;
  teaches: boolean;
  /** Whose work it is: admission bounds each owner's share. */
  owner?: string;
  /** Bytes it holds at its peak (see `workBytes`): admission bounds the sum. */
  bytes?: number;
}

/** One calculation's deadline and clock: `timeoutMs` from its start, or the client leaving. */
export interface Session {
  started: number;
  deadline: number;
  signal: AbortSignal;
  timing: PhaseTiming;
}

/**
 * Runs `work` under one deadline: `timeoutMs` from now, or sooner if the client goes away
 * (`clientSignal`). It first has to be admitted: its estimated work (see admission.ts) behind
 * the work already admitted must fit before the deadline, else it is refused at once. The engine
 * tasks are aborted at the deadline (native builds also stop themselves then), and every failure
 * leaves as a contract error (see failures.ts).
 */
export async function underDeadline<T>(
  deps: DeadlineSettings,
  clientSignal: AbortSignal | undefined,
  work: (s: Session) => Promise<T>,
  cost: WorkCost = { units: 0, teaches: false },
): Promise<T> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(deps.timeoutMs);
  const signal = clientSignal ? AbortSignal.any([clientSignal, timeout]) : timeout;
  const session = { started, deadline: Date.now() + deps.timeoutMs, signal, timing: { queueMs: 0, computeMs: 0, batches: 0 } };
  let ticket: Ticket | undefined;
  try {
    ticket = deps.admission?.admit(cost.units, deps.timeoutMs, cost.owner, cost.bytes);
    const body = await work(session);
    if (!allFinite(body)) throw new Error('engine produced a non-finite number');
    if (cost.teaches) ticket?.release({ busyMs: performance.now() - started - session.timing.queueMs, tasks: session.timing.batches });
    return body;
  } catch (e) {
    throw calculationFailure(e, { passed: timeout.aborted, ms: deps.timeoutMs });
  } finally {
    ticket?.release();
  }
}
