import { stress } from '../../risk/stress/stress.js';
import { readJsonBody } from '../body.js';
import { limitedRoute } from '../limited-route.js';
import { serializeStress } from '../serializers.js';

/** POST /api/v1/risk/stress */
export const stressRoute = limitedRoute('stress', async (ctx, ex, key) => {
  const request = ctx.validateStress(await readJsonBody(ex));
  const result = await stress(request, key.owner, ctx.calculator, ex.abortSignal);
  ex.log.info({ key_id: key.id, calculation_id: result.meta.calculation_id, scenarios: request.scenarios.length }, 'stressed');
  ex.send(200, serializeStress(result));
});
