import { encodeParametric, checkStatus, portfolioBook } from './codec.js';
import { ABI } from './abi.js';
import { type Engine } from './ops.js';

/**
 * One small calculation: proves an engine computes (a loaded but broken build fails here, not on
 * a client's request) and warms a fresh worker (its first call is about twice as slow).
 */
export function warmUp<E extends Engine>(engine: E): E {
  const input = encodeParametric({
    horizon: 1,
    confidence: 0.99,
    books: [portfolioBook(1, new Float64Array([1]))],
    comparison: 'none',
    mean: new Float64Array([0]),
    covariance: new Float64Array([1e-4]),
    covarianceColumns: ABI.COVARIANCE_DENSE,
  });
  checkStatus(engine.call(ABI.OP_PARAMETRIC, input));
  return engine;
}
