// FX conversions and instruments (API contract §14), without a server: the direct pair, its inverse,
// one cross (the first currency alphabetically), none; rates from legs; an instrument's model as the
// sum of its factors' (means, returns, loadings rows), and the identity when every instrument is
// its own factor; a shock on an FX column moving the positions converted through it.
import t from 'tap';
import { conversionOf, rateOf } from '../../src/risk/fx/conversion.js';
import { instrumentEstimation } from '../../src/risk/fx/instrument-estimation.js';
import { instrumentShocks } from '../../src/risk/fx/converted-dataset.js';
import { type FxPlan } from '../../src/risk/fx/fx-plan.js';
import { ABI } from '../../src/engine/abi.js';
import { type Estimation } from '../../src/engine/codec.js';

const currencies = (fxPairs: string[]) => ({ base: 'USD', bySymbol: {}, fxPairs });

t.test('direct, inverse, one cross, none', async (t) => {
  const c = currencies(['EURUSD', 'USDJPY', 'GBPEUR', 'CHFGBP']);
  t.same(conversionOf(c, 'USD', 'USD'), { from: 'USD', to: 'USD', legs: [], via: null });
  t.same(conversionOf(c, 'EUR', 'USD')?.legs, [{ pair: 'EURUSD', sign: 1 }]);
  t.same(conversionOf(c, 'JPY', 'USD')?.legs, [{ pair: 'USDJPY', sign: -1 }]);
  const gbp = conversionOf(c, 'GBP', 'USD')!;
  t.same(gbp, {
    from: 'GBP',
    to: 'USD',
    legs: [
      { pair: 'GBPEUR', sign: 1 },
      { pair: 'EURUSD', sign: 1 },
    ],
    via: 'EUR',
  });
  t.same(conversionOf(c, 'JPY', 'EUR')?.via, 'USD', 'JPY → USD (inverse) → EUR (inverse)');
  t.equal(conversionOf(c, 'CHF', 'USD'), null, 'two crosses are not followed');
  const prices: Record<string, number> = { GBPEUR: 1.17, EURUSD: 1.08, USDJPY: 150 };
  t.equal(
    rateOf(gbp, (p) => prices[p]!),
    1 * 1.17 * 1.08,
    'legs multiplied in order',
  );
  t.equal(
    rateOf(conversionOf(c, 'JPY', 'USD')!, (p) => prices[p]!),
    1 / 150,
  );
});

t.test('instruments as sums of factors; the identity keeps the model', async (t) => {
  // Three factors (a stock, a second stock, an FX column), a triangular factor and two returns.
  const est: Estimation = {
    observations: 2,
    firstDate: 0,
    lastDate: 2,
    jitter: 0,
    mean: Float64Array.from([0.001, 0.002, -0.0005]),
    sampleMean: Float64Array.from([0.001, 0.002, -0.0005]),
    covariance: new Float64Array(9),
    factor: Float64Array.from([0.02, 0, 0, 0.004, 0.01, 0, 0.001, -0.002, 0.006]),
    factorColumns: ABI.FACTOR_TRIANGULAR,
    volatility: Float64Array.from([0.02, 0.0108, 0.0064]),
    returns: Float64Array.from([0.01, -0.02, 0.003, -0.005, 0.004, -0.001]),
  };
  const own = [0, 1, 2].map((k) => ({ name: `F${k}`, terms: [[k, 1]] as [number, 1 | -1][], currency: 'USD', withoutFx: k }));
  t.equal(instrumentEstimation(est, own), est, 'every instrument its own factor: the same object');
  const foreign = instrumentEstimation(est, [
    {
      name: 'A',
      terms: [
        [0, 1],
        [2, 1],
      ],
      currency: 'EUR',
      withoutFx: 2,
    },
    { name: 'cash', terms: [[2, -1]], currency: 'JPY', withoutFx: -1 },
  ]);
  t.same([...foreign.mean], [0.001 + -0.0005, 0 - -0.0005]);
  t.same([...foreign.returns], [0.01 + 0.003, 0 - 0.003, -0.005 + -0.001, 0 - -0.001]);
  t.same([...foreign.factor], [0.02 + 0.001, 0 + -0.002, 0 + 0.006, 0 - 0.001, 0 - -0.002, 0 - 0.006]);
  t.equal(foreign.factorColumns, 3, 'loadings over the three factors’ normals');
  t.equal(foreign.factorsSampled, ABI.FACTOR_TRIANGULAR);
  t.equal(foreign.volatility[0], Math.sqrt(0.021 ** 2 + 0.002 ** 2 + 0.006 ** 2));
});

t.test('a shock on an FX column moves the positions converted through it', async (t) => {
  const plan: FxPlan = {
    reporting: 'USD',
    factors: ['SAP', 'AAPL', 'EURUSD', 'USDJPY'],
    instruments: [
      {
        name: 'SAP',
        terms: [
          [0, 1],
          [2, 1],
        ],
        currency: 'EUR',
        withoutFx: -1,
      },
      { name: 'AAPL', terms: [[1, 1]], currency: 'USD', withoutFx: 1 },
      { name: '@cash:JPY', terms: [[3, -1]], currency: 'JPY', withoutFx: -1 },
    ],
    conversions: [],
    foreign: true,
  };
  t.same(instrumentShocks({ AAPL: -0.2 }, plan), { AAPL: -0.2 }, 'an own shock alone is kept exactly');
  t.same(instrumentShocks({ EURUSD: -0.1 }, plan), { SAP: -0.1 });
  t.same(instrumentShocks({ SAP: -0.2, EURUSD: 0.1, USDJPY: 0.25 }, plan), { SAP: 0.8 * 1.1 - 1, '@cash:JPY': 1 / 1.25 - 1 });
});
