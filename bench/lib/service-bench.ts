import autocannon from 'autocannon';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { FileKeyStore } from '../../src/auth/key-store.js';
import { loadKeySecret } from '../../src/auth/secret.js';
import { ROOT } from '../../src/paths.js';
import { spawnService } from '../../test/helpers/process.js';
import { tempDir, testEnv } from '../../test/helpers/service.js';
import { generateWide461 } from '../../test/helpers/generate-prices.js';
import { median } from './stats.js';

export interface ServiceFigures {
  latency_ms: Record<string, number>;
  engine_ms: Record<string, number>;
  load: { connections: number; seconds: number; requests_per_s: number; p50_ms: number; p99_ms: number; errors: number; non_2xx: number };
  overhead_ms: number;
}

interface Meta {
  meta: { timing_ms: { engine: number; total: number }; metrics: { value_at_risk: number } };
}

/** The sample's ten symbols: the benchmarks' 10-asset book. */
export const SAMPLE_SYMBOLS = ['AAPL', 'MSFT', 'AMZN', 'GOOGL', 'JPM', 'XOM', 'JNJ', 'PG', 'KO', 'KHC'];

/** A seeded equal-weight Monte Carlo request (99 %, `horizon` days) over `symbols`, as JSON. */
export function calculateBody(datasetId: string, symbols: string[], simulations: number, horizon = 10): string {
  return JSON.stringify({
    dataset_id: datasetId,
    method: 'monte_carlo_normal',
    method_options: { seed: 1 },
    portfolio_value: 1_000_000,
    currency: 'USD',
    portfolio: symbols.map((symbol) => ({ symbol, weight: 1 / symbols.length })),
    confidence_level: 0.99,
    time_horizon: horizon,
    simulations,
  });
}

/**
 * POSTs `body` to /api/v1/risk/calculate`route` (route '' or '/batch') with the service's first key:
 * the answer's text and the wall time the client saw; any status but 200 throws, naming `what`.
 */
export async function postCalculate(svc: BenchService, route: string, body: string, what: string): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  const r = await fetch(`${svc.base}/api/v1/risk/calculate${route}`, {
    method: 'POST',
    headers: { 'X-API-Key': svc.keys[0]!, 'Content-Type': 'application/json' },
    body,
  });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${what}: calculate${route} ${r.status}: ${text.slice(0, 500)}`);
  return { text, ms: performance.now() - started };
}

/** The real service in a child process (what `npm start` runs): its base URL, keys and an upload. */
export interface BenchService {
  base: string;
  /** 50 keys (owner "bench"); keys[0] uploads. */
  keys: string[];
  /** Uploads a CSV over HTTP, returns its dataset id. */
  upload(file: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `node dist/src/main.js` on loopback (uWS, the Piscina pool and its workers) with a fresh
 * DATA_DIR and 50 keys; `env` adds to or overrides its environment (rate limits, WORKERS, …).
 */
export async function startBenchService(env: Record<string, string>): Promise<BenchService> {
  const dir = tempDir('risk-bench-');
  const full = testEnv(dir, env);
  const store = new FileKeyStore(full.DATA_DIR!, loadKeySecret(full.SECRET_FILE!));
  const keys: string[] = [];
  for (let i = 0; i < 50; i++) keys.push((await store.create({ name: `bench${i}`, owner: 'bench' })).key);
  let svc;
  try {
    svc = await spawnService(full);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const base = `http://127.0.0.1:${svc.port}`;
  const upload = async (file: string) => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(readFileSync(file))]), 'prices.csv');
    const r = await fetch(`${base}/api/v1/risk/datasets/upload`, { method: 'POST', headers: { 'X-API-Key': keys[0]! }, body: form });
    const json = (await r.json()) as { dataset_id: string };
    if (r.status !== 200) throw new Error(`upload ${r.status}: ${JSON.stringify(json)}`);
    return json.dataset_id;
  };
  const stop = async () => {
    svc.child.kill('SIGTERM');
    await svc.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  return { base, keys, upload, stop };
}

/** The real service in a child process (what `npm start` runs), measured from outside. */
export async function benchService(quick: boolean, workers = 2): Promise<ServiceFigures> {
  const svc = await startBenchService({
    WORKERS: String(workers),
    RATE_LIMIT_CALCULATE_PER_MIN: '1000000',
    RATE_LIMIT_UPLOAD_PER_MIN: '1000',
    MAX_QUEUE: '1000',
  });
  const { base, keys, upload } = svc;
  try {
    const sample = await upload(path.join(ROOT, 'examples/prices_wide_sample.csv'));
    const wide = await upload(generateWide461());
    const wideSymbols = readFileSync(generateWide461(), 'utf8').slice(0, 4000).split('\n')[0]!.split(',').slice(1, 21);
    const post = async (payload: string, key = keys[0]!) => {
      const start = performance.now();
      const r = await fetch(`${base}/api/v1/risk/calculate`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: payload,
      });
      const json = (await r.json()) as Meta;
      if (r.status !== 200) throw new Error(`calculate ${r.status}: ${JSON.stringify(json)}`);
      return { ms: performance.now() - start, meta: json.meta };
    };
    const requests = {
      W1: calculateBody(sample, SAMPLE_SYMBOLS, quick ? 20_000 : 100_000),
      W2: calculateBody(wide, wideSymbols, quick ? 100_000 : 1_000_000),
      small: calculateBody(sample, SAMPLE_SYMBOLS, 10_000),
    };
    const latency_ms: Record<string, number> = {};
    const engine_ms: Record<string, number> = {};
    for (const [name, payload] of Object.entries(requests)) {
      await post(payload); // warm: estimate cached, workers tiered up
      const runs = [];
      for (let i = 0; i < (quick ? 5 : 9); i++) runs.push(await post(payload));
      latency_ms[name] = median(runs.map((r) => r.ms));
      engine_ms[name] = median(runs.map((r) => r.meta.timing_ms.engine));
    }
    const overheads = [];
    for (let i = 0; i < (quick ? 50 : 200); i++) {
      const r = await post(requests.small, keys[i % keys.length]);
      overheads.push(r.ms - r.meta.timing_ms.engine);
    }
    const seconds = quick ? 3 : 15;
    let next = 0;
    const result = await autocannon({
      url: `${base}/api/v1/risk/calculate`,
      connections: 50,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          setupRequest: (req: autocannon.Request) => ({
            ...req,
            headers: { 'content-type': 'application/json', 'x-api-key': keys[next++ % keys.length]! },
            body: requests.small,
          }),
        },
      ],
    });
    return {
      latency_ms,
      engine_ms,
      load: {
        connections: 50,
        seconds,
        requests_per_s: result.requests.average,
        p50_ms: result.latency.p50,
        p99_ms: result.latency.p99,
        errors: result.errors + result.timeouts,
        non_2xx: result.non2xx,
      },
      overhead_ms: median(overheads),
    };
  } finally {
    await svc.stop();
  }
}

/**
 * W5 (all 461 symbols of the wide file × `simulations` × 1 day, 99 %) end to end on two services of
 * 2 workers each, one per engine, called in alternation so that a busy moment of this shared machine
 * lands on both: client-measured, the median of `repeats` per engine after a warm call each (the
 * estimate cached, the workers tiered up).
 */
export async function benchW5EndToEnd(simulations: number, repeats: number): Promise<Record<'native' | 'wasm', number>> {
  const engines = ['native', 'wasm'] as const;
  const services = [];
  try {
    for (const engine of engines) services.push(await startBenchService({ WORKERS: '2', ENGINE: engine, RATE_LIMIT_CALCULATE_PER_MIN: '100000' }));
    const symbols = readFileSync(generateWide461(), 'utf8').slice(0, 20_000).split('\n')[0]!.split(',').slice(1);
    const calls = await Promise.all(
      services.map(async (svc, e) => {
        const body = calculateBody(await svc.upload(generateWide461()), symbols, simulations, 1);
        return async (): Promise<number> => {
          const start = performance.now();
          const r = await fetch(`${svc.base}/api/v1/risk/calculate`, {
            method: 'POST',
            headers: { 'X-API-Key': svc.keys[0]!, 'Content-Type': 'application/json' },
            body,
          });
          const json = (await r.json()) as Meta & { meta: { engine: { build: string } } };
          const engine = engines[e]!;
          if (r.status !== 200) throw new Error(`W5 on ${engine}: ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
          if (!json.meta.engine.build.startsWith(engine)) throw new Error(`W5: asked for ${engine}, the service ran ${json.meta.engine.build}`);
          return performance.now() - start;
        };
      }),
    );
    for (const call of calls) await call();
    const times: number[][] = engines.map(() => []);
    for (let i = 0; i < repeats; i++) for (const [e, call] of calls.entries()) times[e]!.push(await call());
    return { native: median(times[0]!), wasm: median(times[1]!) };
  } finally {
    for (const svc of services) await svc.stop();
  }
}
