import { ABI } from '../engine/abi.js';
import { workUnits } from './work-cost.js';

/** Fewest blocks worth a task of their own (64k simulations): below that dispatch costs more. */
export const MIN_BLOCKS_PER_BATCH = 256;

/**
 * Work units of one scenario of the book MIN_BLOCKS_PER_BATCH was set for: 10 assets bought and
 * held at 99 %, drawn through a triangular factor and priced once.
 */
const REFERENCE_SCENARIO_UNITS = workUnits({ scenarios: 1, assets: 10, books: 1, steps: 1, correlated: true, window: 1_000, confidence: 0.99 });

/**
 * Fewest blocks worth a task of their own when one scenario costs `scenarioUnits`: as much work as
 * MIN_BLOCKS_PER_BATCH blocks of the reference book, so a wide book (461 assets: 1,600 times the
 * work per scenario) is split from 2 blocks, never more blocks than MIN_BLOCKS_PER_BATCH.
 */
export function minBlocksFor(scenarioUnits: number): number {
  const blocks = Math.ceil((MIN_BLOCKS_PER_BATCH * REFERENCE_SCENARIO_UNITS) / Math.max(scenarioUnits, 1e-9));
  return Math.min(MIN_BLOCKS_PER_BATCH, Math.max(1, blocks));
}

export interface Batch {
  first: number;
  end: number;
}

export function blockCount(scenarios: number): number {
  return Math.ceil(scenarios / ABI.BLOCK);
}

/**
 * Splits the blocks of `scenarios` into at most `maxBatches` contiguous batches of near-equal size.
 * The result of a calculation does not depend on the split; only its speed does.
 */
export function planBatches(scenarios: number, maxBatches: number, minBlocks = MIN_BLOCKS_PER_BATCH): Batch[] {
  const blocks = blockCount(scenarios);
  // Whole numbers of batches: a fractional or non-finite maximum must not drop blocks.
  const most = Number.isFinite(maxBatches) ? Math.floor(maxBatches) : 1;
  const count = Math.max(1, Math.min(most, Math.floor(blocks / Math.max(1, minBlocks)), blocks));
  return Array.from({ length: count }, (_, i) => ({
    first: Math.floor((i * blocks) / count),
    end: Math.floor(((i + 1) * blocks) / count),
  }));
}
