import { ABI } from '../engine/abi.js';

/** Fewest blocks worth a task of their own (64k simulations): below that dispatch costs more. */
export const MIN_BLOCKS_PER_BATCH = 256;

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
