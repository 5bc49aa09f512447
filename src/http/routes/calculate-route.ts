import { calculate, calculateBatch } from '../../risk/calculate.js';
import { readJsonBody } from '../body.js';
import { limitedRoute } from '../limited-route.js';
import { serializeBatch, serializeCalculate } from '../serializers.js';

/** POST /api/v1/risk/calculate */
export const calculateRoute = limitedRoute('calculate', async (ctx, ex, key) => {
  const request = ctx.validateCalculate(await readJsonBody(ex));
  const result = await calculate(request, key.owner, ctx.calculator, ex.abortSignal);
  ctx.metrics.engineSeconds.observe({ method: request.method }, result.meta.timing_ms.engine / 1000);
  ex.log.info({ key_id: key.id, calculation_id: result.meta.calculation_id, method: request.method, ms: result.meta.timing_ms.total }, 'calculated');
  ex.send(200, serializeCalculate(result));
});

/** POST /api/v1/risk/calculate/batch */
export const batchRoute = limitedRoute('batch', async (ctx, ex, key) => {
  const request = ctx.validateBatch(await readJsonBody(ex));
  const result = await calculateBatch(request, key.owner, ctx.calculator, ex.abortSignal);
  ctx.metrics.engineSeconds.observe({ method: request.method }, result.meta.timing_ms.engine / 1000);
  ex.log.info(
    { key_id: key.id, calculation_id: result.meta.calculation_id, method: request.method, books: request.books.length, ms: result.meta.timing_ms.total },
    'calculated batch',
  );
  ex.send(200, serializeBatch(result));
});
