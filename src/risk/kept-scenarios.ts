import { decodeResults, type EngineResults } from '../engine/results-codec.js';
import { checkStatus, finalizeInput } from '../engine/codec.js';
import { encodeSpec, specParts } from '../engine/spec-codec.js';
import { ABI } from '../engine/abi.js';
import { sharedAnswer, type EngineExecutor, type EngineReply } from '../engine/ops.js';
import { type Estimation } from '../engine/codec.js';
import { scenarioCount, scenarioUnits, simulationSpec, type BatchPolicy, type ModelInput } from './engine-run.js';
import { addPhase, type PhaseTiming } from './phase-timing.js';
import { minBlocksFor, planBatches } from './plan.js';

/**
 * A model's scenarios kept for a live book: per batch of blocks, every asset's e^{R_i} − 1 as
 * OP_UNITS drew them with their per-asset tails (which do not depend on the book), in shared memory. Pricing another book on them (OP_SIMULATE_KEPT, then the usual finalize)
 * gives the figures of drawing them again, bit for bit (engine/core/tests/kept_units.rs), at the
 * cost of the books' P&L and the figures only.
 */
export interface KeptScenarios {
  batches: { first: number; end: number }[];
  units: Float64Array[];
  /** Bytes the units hold. */
  bytes: number;
  /**
   * Options priced on the units as columns after them, in OP_OPTION_UNITS' words [assets, horizon,
   * options, fields…] (`withOptionColumns`): each block's columns are written where it is priced
   * (OP_SIMULATE_OPTIONS), never kept.
   */
  options?: Float64Array;
}

/** Whether a model's scenarios can be kept: buy-and-hold without importance sampling (one book). */
export function canKeep(model: ModelInput): boolean {
  return model.method !== 'parametric_normal' && !model.rebalanced && !model.importanceSampling && model.books.length === 1;
}

const budgetOf = (policy: BatchPolicy) => () => (policy.deadline === undefined ? 0 : Math.max(1, policy.deadline - Date.now()));

/** Draws and keeps `model`'s scenarios (its books do not matter to them), split as runModel splits. */
export async function keepScenarios(
  exec: EngineExecutor,
  model: ModelInput,
  est: Estimation,
  policy: BatchPolicy,
  signal?: AbortSignal,
): Promise<KeptScenarios> {
  const spec = simulationSpec(model, est);
  const batches = planBatches(scenarioCount(model, est), policy.maxBatches, policy.minBlocksPerBatch ?? minBlocksFor(scenarioUnits(model, est)));
  const budget = budgetOf(policy);
  const replies = await Promise.all(batches.map((b) => exec.run(ABI.OP_UNITS, specParts(spec, b.first, b.end, budget()), signal, undefined, 'shared')));
  return keptFrom(batches, replies);
}

/**
 * Kept scenarios from the engine's answers, one per batch (OP_UNITS): after the status word, the
 * units and their per-asset tails in the engine's own layout, in shared memory, where every later
 * task reads them in place (no copy per tick on this thread, none at all into a native engine).
 * Answers asked 'shared' are made there by the task, so this thread never copies them (800 MB took
 * it 1.3–2.5 s); others are copied once.
 */
export function keptFrom(batches: readonly { first: number; end: number }[], replies: EngineReply[]): KeptScenarios {
  const units = replies.map((r) => sharedAnswer(checkStatus(r.output).subarray(1)));
  return { batches: batches.map((b) => ({ first: b.first, end: b.end })), units, bytes: units.reduce((a, u) => a + u.byteLength, 0) };
}

/** Groups of PNL_GROUP assets in a buy-and-hold book of `assets` assets. */
export function pnlGroups(assets: number): number {
  return Math.ceil(assets / ABI.PNL_GROUP);
}

/**
 * Words of one batch's group sums over `blocks` blocks (the engine's layout: a header, the
 * exposures summed for, then per block, book and group BLOCK sums, then per book the worst
 * scenarios' unit rows it keeps: their count, ROW_CACHE_PER_BLOCK indices and rows per block).
 */
export function groupSumsWords(books: number, assets: number, blocks: number): number {
  const rows = blocks * ABI.ROW_CACHE_PER_BLOCK;
  return ABI.GROUP_SUMS_HEADER + books * assets + blocks * books * pnlGroups(assets) * ABI.BLOCK + books * (1 + rows * (1 + assets));
}

/**
 * Words per scenario the group sums of `books` books of `assets` columns keep (their header
 * aside): each book's group sums and its kept rows.
 */
export function groupSumsColumns(books: number, assets: number): number {
  return books * (pnlGroups(assets) + ((1 + assets) * ABI.ROW_CACHE_PER_BLOCK) / ABI.BLOCK);
}

/** Memory for each batch's group sums of `books` books on kept scenarios of `assets` columns, in shared memory. Zeroed: nothing summed yet. */
export function groupSumsFor(kept: KeptScenarios, books: number, assets: number): Float64Array[] {
  return kept.batches.map((b) => new Float64Array(new SharedArrayBuffer(8 * groupSumsWords(books, assets, b.end - b.first))));
}

/**
 * `model`'s books priced on kept scenarios: the results runModel gives for the same model. `sums`,
 * one per batch (`groupSumsFor`), keep the books' group sums from one pricing to the next: the
 * caller prices one book at a time on them.
 */
export async function runKept(
  exec: EngineExecutor,
  model: ModelInput,
  est: Estimation,
  kept: KeptScenarios,
  policy: BatchPolicy,
  signal: AbortSignal | undefined,
  timing: PhaseTiming,
  sums?: readonly Float64Array[],
): Promise<EngineResults> {
  const spec = simulationSpec(model, est);
  const budget = budgetOf(policy);
  // One input per task, the model copied in here: a worker joins input parts behind a lead in a
  // fresh buffer of its own, which measured slower (1,200 assets: a tick's median 17 → 27 ms) than
  // this thread's copy moved to it.
  const input = (b: { first: number; end: number }) => encodeSpec(spec, b.first, b.end, budget(), kept.options);
  const op = kept.options === undefined ? ABI.OP_SIMULATE_KEPT : ABI.OP_SIMULATE_OPTIONS;
  const replies = await Promise.all(kept.batches.map((b, i) => exec.run(op, input(b), signal, kept.units[i], 'own', sums?.[i])));
  addPhase(timing, replies);
  replies.forEach((r) => checkStatus(r.output));
  const final = await exec.run(ABI.OP_FINALIZE, finalizeInput(replies.map((r) => r.output)), signal);
  addPhase(timing, [final]);
  timing.batches = kept.batches.length;
  return decodeResults(final.output);
}
