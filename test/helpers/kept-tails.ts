import { ABI } from '../../src/engine/abi.js';

/**
 * The tails OP_UNITS keeps after its units ([n, k, each asset's k smallest units, then each one's
 * k smallest negated]) for `units` laid out as it lays them (whole blocks, asset-major per block).
 */
export function keptTails(units: ArrayLike<number>, assets: number, k: number): Float64Array {
  const scenarios = units.length / assets;
  const lanes = [false, true].flatMap((negated) =>
    Array.from({ length: assets }, (_, a) => {
      const column = Float64Array.from({ length: scenarios }, (_, s) => units[(Math.floor(s / ABI.BLOCK) * assets + a) * ABI.BLOCK + (s % ABI.BLOCK)]!);
      return Array.from(
        column
          .map((x) => (negated ? -x : x))
          .sort()
          .subarray(0, k),
      );
    }),
  );
  return Float64Array.from([assets, k, ...lanes.flat()]);
}
