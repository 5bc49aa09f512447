import { calculate } from '../../calc/calculate.js';
import { PoolBusyError } from '../../pool/engine-pool.js';
import { ApiError } from '../errors.js';
import { readBody } from '../exchange.js';
import { mediaType, parseJsonBody } from '../json-body.js';
import { limitedRoute } from '../limited-route.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

/** POST /api/v1/risk/calculate */
export const calculateRoute = limitedRoute('calculate', async (ctx, ex, key) => {
  if (mediaType(ex.head.contentType) !== 'application/json') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json.');
  }
  if (ex.head.contentEncoding !== '') throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding is not supported.');
  if ((ex.head.contentLength ?? 0) > JSON_BODY_LIMIT) throw new ApiError('PAYLOAD_TOO_LARGE', `The body exceeds ${JSON_BODY_LIMIT} bytes.`);
  const body = await readBody(ex, JSON_BODY_LIMIT);
  const request = ctx.validateCalculate(parseJsonBody(body));

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ctx.config.calcTimeoutMs);
  ex.onAbort(() => controller.abort());
  try {
    const result = await calculate(request, key.owner, ctx.calculator, controller.signal);
    ctx.metrics.engineSeconds.observe({ method: request.method }, result.meta.timing_ms.engine / 1000);
    ctx.log.info({ key_id: key.id, calculation_id: result.meta.calculation_id, method: request.method, ms: result.meta.timing_ms.total }, 'calculated');
    ex.json(200, result);
  } catch (e) {
    if (controller.signal.aborted && timedOut) {
      throw new ApiError('CALCULATION_TIMEOUT', `The calculation did not finish within ${ctx.config.calcTimeoutMs} ms.`, {}, { 'Retry-After': '1' });
    }
    if (e instanceof PoolBusyError) throw new ApiError('SERVER_BUSY', undefined, {}, { 'Retry-After': '1' });
    throw e;
  } finally {
    clearTimeout(timer);
  }
});
