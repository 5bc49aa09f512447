import { ABI } from './abi.js';
import { COMPARISON_CODES, METHOD_CODES, writeBooks, type EngineBook, type ModelParameters, type SimulatedMethod } from './codec.js';
import { joinedInput } from './ops.js';

/** A simulation's model and books, encoded per task for its blocks (OP_SIMULATE, OP_SIMULATE_OWN_TAILS, OP_RUN, OP_UNITS). */
export interface SimulationSpec extends ModelParameters {
  method: SimulatedMethod;
  scenarios: number;
  /** Daily drift (historical: the amount subtracted from each return). */
  mean: Float64Array;
  /** Monte Carlo: the covariance factor and its columns (see `Estimation`). */
  factor: Float64Array;
  factorColumns: number;
  /** Historical: returns [observation][asset]. */
  returns: Float64Array;
}

/** Assets of the books (every book has one weight per asset). */
function assetCount(books: EngineBook[]): number {
  return books[0]?.weights.length ?? 0;
}

/** The spec's model: the returns of a historical simulation, else the factor. */
function specModel(s: SimulationSpec): Float64Array {
  return s.method === 'historical' ? s.returns : s.factor;
}

/** The spec for blocks [first, end) up to the model's count word (the model itself follows it). */
function specHead(s: SimulationSpec, first: number, end: number, budgetMs: number): Float64Array {
  const n = assetCount(s.books);
  const head = ABI.SPEC_HEADER_LEN;
  const out = new Float64Array(head + s.books.length * (1 + n) + n + 1);
  out.set([
    METHOD_CODES[s.method],
    s.rebalanced ? ABI.MODE_REBALANCED : ABI.MODE_BUY_AND_HOLD,
    n,
    s.books.length,
    s.horizon,
    s.degreesOfFreedom,
    s.seed,
    s.antithetic ? 1 : 0,
    s.scenarios,
    s.confidence,
    s.histogramBins,
    first,
    end,
    budgetMs,
    COMPARISON_CODES[s.comparison],
    s.importanceSampling ? ABI.VARIANCE_REDUCTION_IMPORTANCE_SAMPLING : ABI.VARIANCE_REDUCTION_NONE,
  ]);
  const at = writeBooks(out, head, s.books, !s.rebalanced);
  out.set(s.mean, at);
  out[at + n] = s.method === 'historical' ? s.returns.length / n : s.factorColumns;
  return out;
}

/**
 * Encodes the spec for blocks [first, end) as one input, after the words of `before` when given (an
 * option book's columns); `budgetMs` > 0 bounds the task's run time (native).
 */
export function encodeSpec(s: SimulationSpec, first: number, end: number, budgetMs = 0, before?: Float64Array): Float64Array {
  const spec = [specHead(s, first, end, budgetMs), specModel(s)];
  return joinedInput(before ? [before, ...spec] : spec);
}

/** Model vectors already copied to shared memory, by the vector they copy (estimations are never written after they are made). */
const sharedModels = new WeakMap<Float64Array, Float64Array>();

/** `v` in shared memory: copied there on first use, then the same copy for every later task. */
function sharedModel(v: Float64Array): Float64Array {
  if (v.buffer instanceof SharedArrayBuffer) return v;
  let shared = sharedModels.get(v);
  if (!shared) {
    shared = new Float64Array(new SharedArrayBuffer(v.byteLength));
    shared.set(v);
    sharedModels.set(v, shared);
  }
  return shared;
}

/**
 * The spec for blocks [first, end) as input parts [head, model]: the model (a wide book's factor,
 * 11.5 MB at 1,200 assets, or its returns) in shared memory, copied there once per estimation and
 * read by every task where it lies, rather than copied into each task's input on this thread — one
 * copy per worker in a calculation, and again on every calculation from a cached estimate.
 */
export function specParts(s: SimulationSpec, first: number, end: number, budgetMs = 0): [head: Float64Array, model: Float64Array] {
  return [specHead(s, first, end, budgetMs), sharedModel(specModel(s))];
}
