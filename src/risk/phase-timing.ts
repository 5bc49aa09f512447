import { type EngineReply } from '../engine/ops.js';

/** Where a calculation's time went: the slowest task of each phase, phases added up. */
export interface PhaseTiming {
  queueMs: number;
  computeMs: number;
  batches: number;
}

export function addPhase(timing: PhaseTiming, replies: EngineReply[]): void {
  timing.queueMs += Math.max(...replies.map((r) => r.queueMs));
  timing.computeMs += Math.max(...replies.map((r) => r.computeMs));
}
