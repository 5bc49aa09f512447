// Engine-level option books drawn from a seed, for the tests that run option ops on the four
// builds: units of kept scenarios, and option words of OPTION_FIELDS each (calls and puts, both
// models, every valuation, expired and long-dated, σ up to 5, strikes far in and out of the money,
// some on a foreign underlying).
import { ABI } from '../../src/engine/abi.js';
import { mulberry32 } from './mulberry32.js';
import { gaussian } from './price-series.js';

export interface DrawnOptionBook {
  /** BLOCK × blocks units per asset, block by block, asset-major: e^{R} − 1. */
  units: number[];
  /** The options' words, OPTION_FIELDS each. */
  options: number[];
  /** Drawn after the book, for a test that wants more from the same seed (weights, say). */
  rand: () => number;
}

export function drawnOptionBook(seed: number, assets: number, blocks: number, count: number): DrawnOptionBook {
  const rand = mulberry32(seed);
  const units = Array.from({ length: assets * ABI.BLOCK * blocks }, () => Math.expm1(0.05 * gaussian(rand)));
  const options: number[] = [];
  for (let i = 0; i < count; i++) {
    const spot = 1 + 500 * rand();
    const underlying = Math.floor(rand() * assets);
    options.push(
      underlying,
      [ABI.VALUATION_FULL, ABI.VALUATION_DELTA_GAMMA, ABI.VALUATION_DELTA][i % 3]!,
      rand() < 0.5 ? ABI.OPTION_CALL : ABI.OPTION_PUT,
      rand() < 0.5 ? ABI.MODEL_BLACK_SCHOLES : ABI.MODEL_BLACK76,
      spot,
      spot * Math.exp(2 * gaussian(rand)),
      0.01 + 4.99 * rand(),
      -0.05 + 0.3 * rand(),
      0.1 * rand(),
      i % 7 === 0 ? 0 : i % 11 === 0 ? 1 / 365 : 10 * rand(),
    );
    // A quarter on a foreign underlying (api.md §14–15): another column as the conversion's unit,
    // across every valuation (i % 4 against i % 3).
    options.push(i % 4 === 1 ? (underlying + 1 + Math.floor(rand() * (assets - 1))) % assets : ABI.OPTION_NO_FX);
  }
  return { units, options, rand };
}
