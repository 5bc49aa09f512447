// A Monte Carlo backtest is bit-identical on the four engine builds (WASM simd128, WASM scalar,
// native, native x86-64), each with its own worker count: forecasts draw from (seed, date) only.
import t from 'tap';
import { backtestRequestSchema } from '../../src/contract/backtest-schemas.js';
import { compileValidator } from '../../src/http/validator.js';
import { backtest } from '../../src/risk/backtest/backtest.js';
import { MAX_SIMULATIONS } from '../helpers/calculation-domain.js';
import { fourBuilds, OWNER, storeSyntheticDataset } from '../helpers/four-builds.js';

const validate = compileValidator(backtestRequestSchema(MAX_SIMULATIONS));
const { store, id, symbols } = await storeSyntheticDataset(6, 400);
const builds = fourBuilds(store);

t.test('Monte Carlo backtests: four builds, the same bits', async (t) => {
  for (const method of ['monte_carlo_normal', 'monte_carlo_student_t'] as const) {
    const request = validate({
      dataset_id: id,
      method,
      method_options: { seed: 2 ** 53 - 1 },
      currency: 'EUR',
      positions: [
        { symbol: symbols[0], quantity: 1000 },
        { symbol: symbols[3], market_value: -2e5 },
        { symbol: symbols[5], quantity: 300 },
      ],
      confidence_level: 0.975,
      time_horizon: 1,
      simulations: 3_000,
      degrees_of_freedom: 4,
      backtest: { window: 60, estimation_window: 200 },
    });
    const answers = await Promise.all(builds.map(async (b) => JSON.stringify((await backtest(request, OWNER, b.deps)).meta.backtest)));
    for (const [i, b] of builds.entries()) t.equal(answers[i], answers[0], `${method}: ${b.name} = ${builds[0]!.name}`);
  }
});
