// Options (API contract §15) through the real server: each refusal of an option book, at its field
// (apart from options.test.ts to keep each file short; the same dataset and option terms).
import t from 'tap';
import { calculate } from '../helpers/http.js';
import { serviceWithPrices } from '../helpers/dataset-service.js';
import { iso, walk } from '../helpers/price-series.js';
import { DAYS, option, prices } from '../helpers/aapl-option-market.js';

t.test('options', async (t) => {
  const { s, body } = await serviceWithPrices(t, { AAPL: prices, MSFT: walk(DAYS, 7) }, 200_000);

  t.test('refusals at their fields', async (t) => {
    const refused = async (over: Record<string, unknown>, loc: (string | number)[], code = 'VALIDATION_ERROR') => {
      const r = await calculate(s.base, s.key, body({ simulations: 1000, ...over }));
      t.equal(r.status, 422, `${JSON.stringify(loc)}: ${r.text.slice(0, 200)}`);
      t.equal(r.body?.detail?.code, code);
      t.same(r.body?.detail?.errors?.[0]?.loc, loc);
    };
    const at = (field: string) => ['body', 'positions', 0, 'option', field];
    await refused({ positions: [option({ strike: 0 })] }, at('strike'));
    await refused({ positions: [option({ strike: -5 })] }, at('strike'));
    await refused({ positions: [option({ volatility: 0 })] }, at('volatility'));
    await refused({ positions: [option({ volatility: 5.5 })] }, at('volatility'));
    // Below 1e-6 σ√τ of a one-day option is no normal double (5e-324 gave a non-finite price, a 500).
    await refused({ positions: [option({ volatility: Number.MIN_VALUE })] }, at('volatility'));
    await refused({ positions: [option({ volatility: 9.99e-7 })] }, at('volatility'));
    // Several bad fields (and a missing quantity): each at its own field, read as the option it is
    // (the stock reading, with as many errors, had named positions[0].symbol and .option).
    const many = await calculate(s.base, s.key, body({ simulations: 1000, positions: [{ option: option({ strike: 0, volatility: 0, rate: 2 }).option }] }));
    t.equal(many.status, 422);
    t.same(
      (many.body?.detail?.errors as { loc: unknown[] }[]).map((e) => e.loc).sort(),
      [at('rate'), at('strike'), at('volatility'), ['body', 'positions', 0, 'quantity']].sort(),
      'every bad field named where it is',
    );
    await refused({ positions: [option({ expiry: iso(DAYS - 2) })] }, at('expiry'));
    await refused({ positions: [option({ expiry: '2021-02-30' })] }, at('expiry'));
    await refused({ positions: [option({ expiry: '2200-01-01' })] }, at('expiry'));
    await refused({ positions: [option({ underlying: 'NOPE' })] }, at('underlying'), 'UNKNOWN_SYMBOL');
    // A stock symbol after an option is named at its own index in positions, not among the stock positions.
    await refused({ positions: [option({}), { symbol: 'NOPE', quantity: 1 }] }, ['body', 'positions', 1, 'symbol'], 'UNKNOWN_SYMBOL');
    await refused(
      { positions: [option({}), { symbol: 'MSFT', quantity: 1 }, option({}), { symbol: 'NOPE', market_value: 5 }] },
      ['body', 'positions', 3, 'symbol'],
      'UNKNOWN_SYMBOL',
    );
    // Exactly one of quantity and market_value, named at the stock position's own index after options.
    await refused({ positions: [option({}), { symbol: 'MSFT', quantity: 1, market_value: 5 }] }, ['body', 'positions', 1]);
    await refused({ positions: [option({}), option({}), { symbol: 'MSFT' }] }, ['body', 'positions', 2]);
    await refused({ positions: [option({}, 0), { symbol: 'MSFT', quantity: 0 }] }, ['body', 'positions']);
    await refused({ positions: [option({}, 1, 0)] }, ['body', 'positions', 0, 'multiplier']);
    await refused({ positions: [option({})], portfolio_mode: 'rebalanced' }, ['body', 'portfolio_mode']);
    await refused({ positions: [option({})], method: 'parametric_normal' }, ['body', 'method_options', 'valuation']);
    await refused({ positions: [option({})], method: 'parametric_normal', method_options: { valuation: 'delta_gamma' } }, [
      'body',
      'method_options',
      'valuation',
    ]);
    await refused({ positions: [option({})], method_options: { valuation: 'cubic' } }, ['body', 'method_options', 'valuation']);
    // Each option is two engine columns (as asked, at its delta): 501 options were a 500, now a 422.
    await refused({ simulations: 100, positions: Array.from({ length: 501 }, () => option({})) }, ['body', 'positions']);
    const most = await calculate(s.base, s.key, body({ simulations: 100, positions: Array.from({ length: 500 }, () => option({})) }));
    t.equal(most.status, 200, `500 options: ${most.text.slice(0, 200)}`);
  });
});
