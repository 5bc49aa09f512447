// The Acerbi–Szekely Z2 ES backtest (api.md §9) under models whose P&L is drawn here, its
// seeded p-value, and the uniform source its simulations draw from.
import t, { type Test } from 'tap';
import { normalQuantile } from '../../src/risk/numerics/distributions.js';
import { acerbiSzekelyZ2, esBacktest, normalModelFromVarEs } from '../../src/risk/backtest/es-backtest.js';
import { uniformSource } from '../../src/risk/numerics/uniform-source.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { gaussian } from '../helpers/price-series.js';

const close = (t: Test, got: number, want: number, tol: number, what: string) => t.ok(Math.abs(got - want) <= tol, `${what}: ${got} vs ${want} (±${tol})`);
const relClose = (t: Test, got: number, want: number, tol: number, what: string) =>
  t.ok(got === want || Math.abs(got / want - 1) <= tol, `${what}: ${got} vs ${want} (rel ${tol})`);

// Z2 under a model whose P&L is drawn here (mulberry32 + Box–Muller), with VaR and ES from the
// published closed forms at c = 0.975: VaR = zσ − μ, ES = (ES/σ)σ − μ.
const C = 0.975;
const Z = 1.9599639845;
const ES_PER_SIGMA = 2.3378027922;
function drawBook(rand: () => number, n: number, scale = 1) {
  const sigma = Array.from({ length: n }, (_, t) => 1 + 0.5 * Math.sin(t / 7));
  const mu = Array.from({ length: n }, (_, t) => 0.05 * Math.cos(t / 11));
  const pnl = sigma.map((s, t) => mu[t]! + scale * s * gaussian(rand));
  return { pnl, var: sigma.map((s, t) => Z * s - mu[t]!), es: sigma.map((s, t) => ES_PER_SIGMA * s - mu[t]!), mu, sigma };
}

t.test('Z2 is centred at 0 under the right model and clearly negative with ES halved', async (t) => {
  const rand = mulberry32(20240611);
  let sum = 0;
  let halved = 0;
  const reps = 1000;
  for (let r = 0; r < reps; r++) {
    const b = drawBook(rand, 250);
    sum += acerbiSzekelyZ2(b.pnl, b.var, b.es, C);
    halved += acerbiSzekelyZ2(
      b.pnl,
      b.var,
      b.es.map((e) => e / 2),
      C,
    );
  }
  t.ok(Math.abs(sum / reps) < 0.05, `mean Z2 ${sum / reps} (standard error about 0.013)`);
  t.ok(halved / reps < -0.8, `mean Z2 with ES halved ${halved / reps} (expected −1)`);
  const b = drawBook(mulberry32(1), 5);
  const model = normalModelFromVarEs(b.var[3]!, b.es[3]!, C);
  relClose(t, model.sigma, b.sigma[3]!, 1e-9, 'σ from VaR and ES');
  close(t, model.mu, b.mu[3]!, 1e-9, 'μ from VaR and ES');
});

t.test('Z2 p-value: uniform-ish under the model, near 0 when the tails are fatter, reproducible', async (t) => {
  const rand = mulberry32(99);
  const ps: number[] = [];
  for (let r = 0; r < 20; r++) {
    const b = drawBook(rand, 250);
    ps.push(esBacktest(b.pnl, b.var, b.es, C, { seed: r, simulations: 2000 }).p_value);
  }
  const mean = ps.reduce((a, p) => a + p, 0) / ps.length;
  t.ok(mean > 0.3 && mean < 0.7, `mean p-value ${mean} over 20 correct models`);
  const fat = drawBook(rand, 250, 1.5);
  const bad = esBacktest(fat.pnl, fat.var, fat.es, C, { seed: 5 });
  t.ok(bad.z2 < -1 && bad.p_value < 0.01, `σ 1.5× the model's: Z2 ${bad.z2}, p ${bad.p_value}`);
  t.equal(bad.simulations, 10_000, 'default number of simulations');
  const b = drawBook(rand, 250);
  const once = esBacktest(b.pnl, b.var, b.es, C, { seed: 42, simulations: 3000 });
  t.same(esBacktest(b.pnl, b.var, b.es, C, { seed: 42, simulations: 3000 }), once, 'same seed, same result');
  t.ok(Math.abs(esBacktest(b.pnl, b.var, b.es, C, { seed: 43, simulations: 3000 }).p_value - once.p_value) < 0.05, 'another seed, close');
  // A sampler drawing from the same normal model reproduces the built-in one bit for bit.
  const models = b.var.map((v, i) => normalModelFromVarEs(v, b.es[i]!, C));
  const sampler = (day: number, u: () => number) => models[day]!.mu + models[day]!.sigma * normalQuantile(u());
  const viaSampler = esBacktest(b.pnl, b.var, b.es, C, { seed: 42, simulations: 3000, sampler });
  t.same([viaSampler.p_value, viaSampler.model], [once.p_value, 'sampler']);
  t.throws(
    () =>
      esBacktest(
        b.pnl,
        b.var,
        b.var.map((v) => v / 2),
        C,
        { seed: 1 },
      ),
    RangeError,
    'no normal model has ES < VaR',
  );
});

t.test('uniform source: open interval, seeded, distinct streams', async (t) => {
  const u = uniformSource(2 ** 40 + 3);
  const draws = Array.from({ length: 100_000 }, u);
  t.ok(
    draws.every((x) => x > 0 && x < 1),
    'in (0, 1)',
  );
  close(t, draws.reduce((a, x) => a + x, 0) / draws.length, 0.5, 0.005, 'mean');
  t.same(Array.from({ length: 5 }, uniformSource(2 ** 40 + 3)), draws.slice(0, 5), 'reproducible');
  t.not(uniformSource(0)(), uniformSource(2 ** 32)(), 'the high 32 bits of the seed matter');
  t.throws(() => uniformSource(-1), RangeError);
});
