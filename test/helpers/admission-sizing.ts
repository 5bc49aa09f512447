// What the admission tests size their calculations with: one Monte Carlo book of the sample's ten
// symbols, its work units as the service's cost model counts them, and the model's live figures.
import { readFileSync } from 'node:fs';
import { requestShape, workUnits } from '../../src/risk/work-cost.js';
import { calcBody, call } from './http.js';
import { WIDE_SAMPLE } from './service.js';

export const SYMBOLS = ['AAPL', 'MSFT', 'AMZN', 'GOOGL', 'JPM', 'XOM', 'JNJ', 'PG', 'KO', 'KHC'];
export const DATES = readFileSync(WIDE_SAMPLE, 'utf8').trim().split('\n').length - 1;

export const heavyShape = (simulations: number) => ({
  method: 'monte_carlo_normal' as const,
  simulations,
  time_horizon: 1,
  confidence_level: 0.99,
  portfolio_mode: 'buy_and_hold' as const,
});

/** The calculate request of that book on `ds`. */
export const heavyBody = (ds: string, simulations: number) =>
  calcBody(ds, { ...heavyShape(simulations), portfolio: SYMBOLS.map((symbol) => ({ symbol, weight: 0.1 })) });

/** Work units of one simulation of that book (src/risk/admission.ts). */
export const unitsPerSimulation = () => workUnits(requestShape(heavyShape(1), SYMBOLS.length, 1, DATES));

/** A gauge or counter of the service's /metrics, by its unlabelled name. */
export async function metric(base: string, name: string): Promise<number> {
  const line = (await call(base, 'GET', '/metrics')).text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}
