import { backtest } from '../../risk/backtest/backtest.js';
import { readJsonBody } from '../body.js';
import { limitedRoute } from '../limited-route.js';
import { serializeBacktest } from '../serializers.js';

/** POST /api/v1/risk/backtest */
export const backtestRoute = limitedRoute('backtest', async (ctx, ex, key) => {
  const request = ctx.validateBacktest(await readJsonBody(ex));
  const result = await backtest(request, key.owner, ctx.calculator, ex.abortSignal);
  const b = result.meta.backtest;
  ex.log.info(
    { key_id: key.id, calculation_id: result.meta.calculation_id, method: request.method, days: b.observations, ms: result.meta.timing_ms.total },
    'backtested',
  );
  ex.send(200, serializeBacktest(result));
});
