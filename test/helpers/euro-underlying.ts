// A USD stock (AAPL), a EUR stock (SAP) and EURUSD over `days` dates, for the tests of options on a
// foreign underlying: uploaded once with currencies (SAP in EUR, base USD) and once without them.
import { call, csvForm } from './http.js';
import { walk, wideCsv } from './price-series.js';

const rounded = (xs: number[]) => xs.map((p) => Number(p.toPrecision(12)));

export function euroMarket(days: number) {
  return { aapl: rounded(walk(days, 31)), sap: rounded(walk(days, 13)), eurusd: rounded(walk(days, 5).map((p) => p / 90)) };
}

/** The market uploaded with its currencies (`multi`) and as a single-currency dataset (`plain`). */
export async function uploadEuroMarket(base: string, key: string, m: ReturnType<typeof euroMarket>): Promise<{ multi: string; plain: string }> {
  const form = csvForm(wideCsv({ AAPL: m.aapl, SAP: m.sap, EURUSD: m.eurusd }));
  form.set('currencies', JSON.stringify({ SAP: 'EUR' }));
  form.set('base_currency', 'USD');
  const multi = await call(base, 'POST', '/api/v1/risk/datasets/upload', { key, body: form });
  const plain = await call(base, 'POST', '/api/v1/risk/datasets/upload', { key, body: csvForm(wideCsv({ AAPL: m.aapl, SAP: m.sap })) });
  if (multi.status !== 200 || plain.status !== 200) throw new Error(`upload: ${multi.text.slice(0, 200)} ${plain.text.slice(0, 200)}`);
  return { multi: multi.body.dataset_id as string, plain: plain.body.dataset_id as string };
}
