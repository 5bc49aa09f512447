import { calculationFailure } from './failures.js';
import { allFinite } from './response-builder.js';
import { type PhaseTiming } from './risk-calculation.js';

/** What `underDeadline` needs of the calculator: the compute deadline per request. */
export interface DeadlineSettings {
  timeoutMs: number;
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
 * (`clientSignal`). The engine tasks are aborted at the deadline (native builds also stop
 * themselves then), and every failure leaves as a contract error (see failures.ts).
 */
export async function underDeadline<T>(deps: DeadlineSettings, clientSignal: AbortSignal | undefined, work: (s: Session) => Promise<T>): Promise<T> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(deps.timeoutMs);
  const signal = clientSignal ? AbortSignal.any([clientSignal, timeout]) : timeout;
  const session = { started, deadline: Date.now() + deps.timeoutMs, signal, timing: { queueMs: 0, computeMs: 0, batches: 0 } };
  try {
    const body = await work(session);
    if (!allFinite(body)) throw new Error('engine produced a non-finite number');
    return body;
  } catch (e) {
    throw calculationFailure(e, { passed: timeout.aborted, ms: deps.timeoutMs });
  }
}
