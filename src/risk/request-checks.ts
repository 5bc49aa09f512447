import { ApiError, validationError } from '../contract/errors.js';
import { MONTE_CARLO, type CalculateRequest } from '../contract/schemas.js';

/** Largest |Σw − 1| accepted. */
export const WEIGHT_TOLERANCE = 1e-6;

/** Rules that span fields, checked after the schema: each raises from the error table. */
export function checkRequest(req: CalculateRequest): void {
  if (MONTE_CARLO.has(req.method) && req.simulations === undefined) {
    throw validationError([{ loc: ['body', 'simulations'], msg: `required for method ${req.method}`, type: 'missing' }]);
  }
  const opts = req.method_options ?? {};
  if (opts.ewma_lambda !== undefined && opts.covariance !== 'ewma') {
    throw validationError([{ loc: ['body', 'method_options', 'ewma_lambda'], msg: 'only with covariance "ewma"', type: 'value_error' }]);
  }
  const seen = new Map<string, number>();
  req.portfolio.forEach((item, i) => {
    if (seen.has(item.symbol)) {
      throw validationError([{ loc: ['body', 'portfolio', i, 'symbol'], msg: `duplicate symbol ${item.symbol}`, type: 'value_error' }]);
    }
    seen.set(item.symbol, i);
  });
  let sum = 0;
  for (const item of req.portfolio) sum += item.weight;
  // Written so that NaN fails, and with room for binary rounding: 0.999999 is 1 − 1.00000000003e-6
  // as a double, and a person reads it as exactly at the edge.
  if (!(Math.abs(sum - 1) <= WEIGHT_TOLERANCE * (1 + 1e-9))) {
    throw new ApiError('WEIGHTS_DO_NOT_SUM_TO_ONE', `Portfolio weights sum to ${sum}, not 1 (tolerance ${WEIGHT_TOLERANCE}).`, { weight_sum: sum });
  }
}
