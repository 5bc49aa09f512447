// A multi-currency market for the FX tests (API contract §14): walks of a EUR, a GBP and a USD
// stock with EURUSD, GBPEUR and USDJPY; uploads with currency fields; series with exact moments.
import { call, csvForm, type Reply } from './http.js';
import { gaussian, wideCsv } from './price-series.js';
import { mulberry32 } from './mulberry32.js';

export type Body = Record<string, unknown>;
export type Meta = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const ok = (r: Reply) => (r.status === 200 ? 'ok' : r.text.slice(0, 400));

export function uploadWith(base: string, key: string, csv: string, fields: Record<string, string>): Promise<Reply> {
  const form = csvForm(csv);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return call(base, 'POST', '/api/v1/risk/datasets/upload', { key, body: form });
}

/** Columns of m + 1 prices whose daily log returns have, exactly, sample covariance I (divisor m − 1). */
export function orthonormalReturns(m: number, k: number, seed: number): number[][] {
  const rand = mulberry32(seed);
  const cols: number[][] = [];
  for (let j = 0; j < k; j++) {
    let v = Array.from({ length: m }, () => gaussian(rand));
    const mean = v.reduce((a, b) => a + b, 0) / m;
    v = v.map((x) => x - mean);
    for (const u of cols) {
      const dot = v.reduce((a, x, i) => a + x * u[i]!, 0) / (m - 1);
      v = v.map((x, i) => x - dot * u[i]!);
    }
    const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0) / (m - 1));
    cols.push(v.map((x) => x / norm));
  }
  return cols;
}

export const pricesFrom = (start: number, returns: number[]) => returns.reduce((p, r) => [...p, p[p.length - 1]! * Math.exp(r)], [start]);

/** Walks of `days` prices from one seeded stream: each call draws its daily log returns (σ `vol`) after the previous call's. */
export function walks(days: number, seed: number): (start: number, vol: number) => number[] {
  const rand = mulberry32(seed);
  return (start, vol) =>
    pricesFrom(
      start,
      Array.from({ length: days - 1 }, () => vol * gaussian(rand)),
    );
}

/** European options on `underlying` expiring on `expiry` (σ 0.3, r 0.02, q 0.01, multiplier 10), as the option tests hold them. */
export const optionsExpiring =
  (expiry: string) =>
  (underlying: string, strike: number, quantity: number, type = 'call') => ({
    option: { underlying, type, strike, expiry, volatility: 0.3, rate: 0.02, dividend_yield: 0.01 },
    quantity,
    multiplier: 10,
  });

/** Multi-asset walk columns: a EUR stock, a GBP stock, a USD stock and EURUSD, GBPEUR, USDJPY. */
export function marketCsv(): string {
  const rand = mulberry32(11);
  const walk = (start: number, vol: number) =>
    pricesFrom(
      start,
      Array.from({ length: 299 }, () => vol * gaussian(rand)),
    );
  return wideCsv({
    SAP: walk(120, 0.015),
    BARC: walk(2, 0.02),
    AAPL: walk(180, 0.018),
    EURUSD: walk(1.1, 0.005),
    GBPEUR: walk(1.17, 0.004),
    USDJPY: walk(150, 0.006),
  });
}

export const CURRENCIES = { currencies: JSON.stringify({ SAP: 'EUR', BARC: 'GBP' }), base_currency: 'USD' };

export const calcOf = (ds: string, over: Body): Body => ({
  dataset_id: ds,
  method: 'historical',
  currency: 'USD',
  confidence_level: 0.99,
  time_horizon: 1,
  ...over,
});
