import { ApiError, validationError } from '../contract/errors.js';
import { ABI } from '../engine/abi.js';
import { EngineFailure } from '../engine/codec.js';
import { ExecutorBusyError } from '../engine/ops.js';
import { BeyondDeadlineError, OverloadError } from './admission.js';

/**
 * The one place where a calculation's failures become the contract's errors: the deadline, a
 * refused admission, a busy executor, and the engine's own error codes. Anything else is a bug and passes through (500).
 */
export function calculationFailure(e: unknown, deadline: { passed: boolean; ms: number }): unknown {
  if (deadline.passed || (e instanceof EngineFailure && e.code === ABI.ERR_DEADLINE_EXCEEDED)) {
    return new ApiError('CALCULATION_TIMEOUT', `The calculation did not finish within ${deadline.ms} ms.`, {}, { 'Retry-After': '1' });
  }
  if (e instanceof BeyondDeadlineError) {
    const message = `This calculation would not finish within ${e.budgetMs} ms even alone (${e.message}): ask for fewer simulations, symbols or days.`;
    return new ApiError('CALCULATION_TIMEOUT', message, { estimated_ms: Math.round(e.estimatedMs) }, { 'Retry-After': '1' });
  }
  if (e instanceof OverloadError) {
    const message = e.memory
      ? `Busy: the calculations in flight hold the memory this one needs; retry in ${e.retryAfterS} s.`
      : e.ownerOverShare
        ? `Busy: your calculations already hold your share of the service; retry in ${e.retryAfterS} s.`
        : `Busy: the work already queued would not leave this calculation time to finish; retry in ${e.retryAfterS} s.`;
    return new ApiError('SERVER_BUSY', message, { retry_after_s: e.retryAfterS }, { 'Retry-After': String(e.retryAfterS) });
  }
  if (e instanceof ExecutorBusyError) return new ApiError('SERVER_BUSY', undefined, {}, { 'Retry-After': '1' });
  if (!(e instanceof EngineFailure)) return e;
  if (e.code === ABI.ERR_INSUFFICIENT_DATA) {
    return new ApiError('INSUFFICIENT_DATA', `Only ${e.detail} daily returns on dates where every portfolio symbol has a price; at least 30 are needed.`, {
      observations: e.detail,
    });
  }
  if (e.code === ABI.ERR_LIMIT_EXCEEDED) return validationError([{ loc: ['body', 'simulations'], msg: e.message, type: 'limit_exceeded' }], e.message);
  if (e.code === ABI.ERR_OVERFLOW)
    return validationError([{ loc: ['body'], msg: e.message, type: 'overflow' }], `The figures do not fit double precision: ${e.message}.`);
  return e;
}

/** Every number in the response is finite (the contract's promise); anything else is a bug. */
export function allFinite(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(allFinite);
  if (value && typeof value === 'object') return Object.values(value).every(allFinite);
  return true;
}
