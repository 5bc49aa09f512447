import { decodeResults, type EngineResults } from '../engine/results-codec.js';
import { checkStatus, finalizeInput, finalizeSplitInput } from '../engine/codec.js';
import { specParts, type SimulationSpec } from '../engine/spec-codec.js';
import { ABI } from '../engine/abi.js';
import { type EngineExecutor, type EngineReply } from '../engine/ops.js';
import { addPhase, type PhaseTiming } from './phase-timing.js';

/** How a calculation's simulate tasks are run and merged. */
export interface MergePlan {
  /** Parts the finalize is split into (1: one OP_FINALIZE; see BatchPolicy.finalizeParts). */
  finalizeParts: number;
  /** Each task's time budget in ms when it is sent (0: none). */
  budget: () => number;
  /** Where the service counts its merges (for /metrics), if it does. */
  counts?: MergeCounts;
}

/**
 * What a service's merges did, so far. `fullTailRepeats`: split calculations simulated again
 * keeping full tails (ERR_TAILS_SHORT) — rare by design (a book tied at its tail's boundary, a
 * draw beyond six deviations); rising, it shows a change of the tails' sizing gone wrong, which
 * would otherwise show only as time.
 */
export interface MergeCounts {
  fullTailRepeats: number;
}

/**
 * The simulate tasks over `batches` (two or more) and their exact merge. Each task keeps its own
 * share of every tail (OP_SIMULATE_OWN_TAILS: about 1/T of it and a margin, not all of it; the
 * engine keeps full tails for historical windows and weighted scenarios, which are not
 * exchangeable), so a split adds no work to its tasks and the merge reads T times fewer tail
 * values. Where the merge cannot prove a kept tail long enough (ERR_TAILS_SHORT: a book whose P&L
 * ties at its tail's boundary) the tasks run again keeping full tails. (A book of no exposure ties
 * at every rank: the engine keeps the books' full worst lists for it at once.) Either way the
 * figures are OP_RUN's, bit for bit (the engine's tests show it).
 */
export async function simulateAndMerge(
  exec: EngineExecutor,
  spec: SimulationSpec,
  batches: { first: number; end: number }[],
  plan: MergePlan,
  signal: AbortSignal | undefined,
  timing: PhaseTiming,
): Promise<EngineResults> {
  const parts = finalizeParts(plan.finalizeParts, batches.length, spec.importanceSampling);
  // A split finalize hands each partial to a part and to the merge: made in shared memory, it goes
  // to both as it is (a transferred buffer could go to one only, and a copy would be made here).
  const answer = parts > 1 ? 'shared' : 'own';
  const merged = async (op: typeof ABI.OP_SIMULATE | typeof ABI.OP_SIMULATE_OWN_TAILS): Promise<Float64Array> => {
    const replies = await Promise.all(batches.map((b) => exec.run(op, specParts(spec, b.first, b.end, plan.budget()), signal, undefined, answer)));
    addPhase(timing, replies);
    replies.forEach((r) => checkStatus(r.output));
    const partials = replies.map((r) => r.output);
    const final = parts > 1 ? await splitFinalize(exec, partials, parts, signal, timing) : await exec.run(ABI.OP_FINALIZE, finalizeInput(partials), signal);
    addPhase(timing, [final]);
    return final.output;
  };
  const own = await merged(ABI.OP_SIMULATE_OWN_TAILS);
  if (own[0] !== ABI.ERR_TAILS_SHORT) return decodeResults(own);
  if (plan.counts) plan.counts.fullTailRepeats += 1;
  return decodeResults(await merged(ABI.OP_SIMULATE));
}

/** How many parts to finalize `partials` simulate tasks' partials in (1: one OP_FINALIZE). */
function finalizeParts(asked: number, partials: number, weighted: boolean): number {
  // Weighted scenarios are merged whole (their parts would summarize nothing).
  if (weighted) return 1;
  return Math.max(1, Math.min(partials, Math.floor(asked)));
}

/**
 * OP_FINALIZE_PART over `parts` runs of the partials at once, then OP_FINALIZE_SPLIT (its reply
 * returned). Every input goes as parts, read in place by the engine: the partials (in shared
 * memory) are not joined here, nor the summaries (each moved to the merge whole).
 */
async function splitFinalize(
  exec: EngineExecutor,
  partials: Float64Array[],
  parts: number,
  signal: AbortSignal | undefined,
  timing: PhaseTiming,
): Promise<EngineReply> {
  const n = partials.length;
  const runs = Array.from({ length: parts }, (_, j) => partials.slice(Math.floor((j * n) / parts), Math.floor(((j + 1) * n) / parts)));
  const summaries = await Promise.all(runs.map((run) => exec.run(ABI.OP_FINALIZE_PART, finalizeInput(run), signal)));
  addPhase(timing, summaries);
  summaries.forEach((r) => checkStatus(r.output));
  return exec.run(
    ABI.OP_FINALIZE_SPLIT,
    finalizeSplitInput(
      summaries.map((r) => r.output),
      partials,
    ),
    signal,
  );
}
