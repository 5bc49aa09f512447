import { type Logger } from 'pino';
import { ApiError, storageUnavailableError } from '../contract/errors.js';
import { isStorageUnavailable } from '../persistence/storage-unavailable.js';
import { type ServiceMetrics } from './service-metrics.js';

/**
 * The one place a failure becomes the contract's error, for HTTP answers and live messages alike:
 * an ApiError as it is (a timeout counted); a store that cannot serve now, SERVER_BUSY with its
 * Retry-After (counted, logged as a warning); anything else INTERNAL_ERROR, logged without its
 * text reaching the client.
 */
export function apiErrorOf(e: unknown, metrics: ServiceMetrics, log: Logger, route: string): ApiError {
  if (e instanceof ApiError) {
    if (e.code === 'CALCULATION_TIMEOUT') metrics.timeouts.inc();
    return e;
  }
  if (isStorageUnavailable(e)) {
    metrics.storageErrors.inc();
    log.warn({ err: e, route }, 'storage unavailable');
    return storageUnavailableError();
  }
  log.error({ err: e, route }, 'unhandled error');
  return new ApiError('INTERNAL_ERROR');
}

/** Whether an unexpected failure is worth mapping at all: not once the client has gone. */
export function isUnexpected(e: unknown): boolean {
  return !(e instanceof ApiError) && !isStorageUnavailable(e);
}
