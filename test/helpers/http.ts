import { readFileSync } from 'node:fs';
import { type Test } from 'tap';
import { checkAgainstDocument } from './response-validation.js';
import { portfolio } from './portfolio.js';

export interface Reply {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export async function call(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key !== undefined) headers['X-API-Key'] = opts.key;
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(base + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const reply = { status: res.status, headers: res.headers, body: parsed, text };
  checkAgainstDocument(method, path, reply);
  return reply;
}

export function csvForm(content: string | Buffer, field = 'file', filename = 'prices.csv'): FormData {
  const form = new FormData();
  form.set(field, new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), filename);
  return form;
}

export async function upload(base: string, key: string, content: string | Buffer): Promise<Reply> {
  return call(base, 'POST', '/api/v1/risk/datasets/upload', { key, body: csvForm(content) });
}

export async function uploadFile(base: string, key: string, file: string): Promise<Reply> {
  return upload(base, key, readFileSync(file));
}

export function calcBody(datasetId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    dataset_id: datasetId,
    method: 'monte_carlo_normal',
    method_options: { seed: 42 },
    portfolio_value: 1_000_000,
    currency: 'USD',
    portfolio: portfolio({ AAPL: 0.4, MSFT: 0.3, KHC: 0.3 }),
    portfolio_mode: 'buy_and_hold',
    confidence_level: 0.99,
    time_horizon: 10,
    simulations: 20_000,
    ...overrides,
  };
}

export async function calculate(base: string, key: string, body: unknown): Promise<Reply> {
  return call(base, 'POST', '/api/v1/risk/calculate', { key, json: body });
}

/**
 * An error body without its request id (which differs on every request, and is checked against
 * the X-Request-Id header by test/http/request-ids.test.ts): for comparing bodies exactly.
 */
export function withoutRequestId(body: { detail: Record<string, unknown> }): { detail: Record<string, unknown> } {
  const detail = { ...body.detail };
  delete detail.request_id;
  return { detail };
}

/**
 * A checker of refused requests sent by `send`: the status, the error code and, where given, the
 * first error's location.
 */
export function refusals(t: Test, send: (json: Record<string, unknown>) => Promise<Reply>) {
  return async (json: Record<string, unknown>, status: number, code: string, loc?: (string | number)[]): Promise<void> => {
    const r = await send(json);
    t.equal(r.status, status, `${code}: ${r.text.slice(0, 200)}`);
    t.equal(r.body?.detail?.code, code);
    if (loc) t.same(r.body.detail.errors[0].loc, loc);
  };
}
