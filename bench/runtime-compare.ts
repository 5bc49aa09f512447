// `node dist/bench/runtime-compare.js IMAGE [--quick]` (as root, after `npm run build` and an image
// built from the Dockerfile): the runtime's effect, side by side in one run. A: this checkout on
// this machine's Node with the uWebSockets.js build it loads (Node 20 and the old republish on
// glibc 2.36). B: IMAGE's entry command in a container of it (`buildah run`, its own user: Node 24
// and the official v20.56.0 binaries on Debian 13). Both on ENGINE=wasm, the same WASM code, so the
// difference is Node/V8 and the HTTP layer; both on loopback, driven by the same load client in a
// process of its own, in alternating rounds (A, B, A, B …) so drift on a shared machine falls on both.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/paths.js';
import { freePort } from '../test/helpers/backing-servers.js';
import { generateWide461 } from '../test/helpers/generate-prices.js';
import { waitFor } from '../test/helpers/wait.js';
import { runLoad } from './lib/latency-bench.js';
import { calculateBody, SAMPLE_SYMBOLS, startBenchService } from './lib/service-bench.js';
import { median } from './lib/stats.js';

const image = process.argv[2];
if (!image || image.startsWith('--')) throw new Error('usage: node dist/bench/runtime-compare.js IMAGE [--quick]');
const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 1 : 3;
const ENV: Record<string, string> = {
  WORKERS: '2',
  ENGINE: 'wasm',
  RATE_LIMIT_CALCULATE_PER_MIN: '1000000',
  RATE_LIMIT_UPLOAD_PER_MIN: '1000',
  MAX_QUEUE: '10000',
  ADMISSION_OWNER_SHARE_PCT: '100',
};

interface Runtime {
  name: string;
  base: string;
  key: string;
  node: string;
  uws: string;
  stop(): Promise<void>;
}

/** What /metrics says runs: Node and the uWebSockets.js build. */
async function describe(base: string): Promise<{ node: string; uws: string }> {
  const m = await (await fetch(`${base}/metrics`)).text();
  const info = /^risk_http_server_info\{package="([^"]+)",version="([^"]+)".*node="([^"]+)"\}/m.exec(m);
  return { uws: `${info?.[1]} ${info?.[2]}`, node: info?.[3] ?? '?' };
}

async function onThisMachine(): Promise<Runtime> {
  const svc = await startBenchService(ENV);
  return { name: 'this machine', base: svc.base, key: svc.keys[0]!, ...(await describe(svc.base)), stop: svc.stop };
}

async function inImage(): Promise<Runtime> {
  const container = `risk-runtime-compare-${process.pid}`;
  const buildah = (args: string[]) => spawnSync('buildah', args, { encoding: 'utf8' });
  if (buildah(['from', '--name', container, image!]).status !== 0) throw new Error(`buildah from ${image} failed`);
  const port = await freePort();
  const env = Object.entries({ ...ENV, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  const child: ChildProcess = spawn(
    'setpriv',
    ['--pdeathsig', 'KILL', 'buildah', 'run', '--isolation', 'chroot', ...env, container, '--', 'node', 'dist/src/main.js'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const { value: pid } = await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the image's service exited:\n${log}`);
      const line = log.split('\n').find((l) => l.includes('"msg":"listening"'));
      return line ? (JSON.parse(line) as { pid: number }).pid : undefined;
    },
    "the image's service to listen",
    180_000,
  );
  // The first key is in the file the service names in its log (in the state volume, mode 0600).
  const keyFile = /It is in (\S+) \(mode 0600\)/.exec(log)?.[1];
  if (!keyFile) throw new Error(`the image's service named no first-key file:\n${log}`);
  const key = buildah(['run', '--isolation', 'chroot', container, '--', 'cat', keyFile]).stdout.trim();
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(pid, 'SIGTERM');
    await exited;
    buildah(['rm', container]);
  };
  return { name: 'image', base, key, ...(await describe(base)), stop };
}

async function upload(r: Runtime, file: string): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(readFileSync(file))]), 'prices.csv');
  const res = await fetch(`${r.base}/api/v1/risk/datasets/upload`, { method: 'POST', headers: { 'X-API-Key': r.key }, body: form });
  const json = (await res.json()) as { dataset_id: string };
  if (res.status !== 200) throw new Error(`upload ${res.status}: ${JSON.stringify(json)}`);
  return json.dataset_id;
}

interface Round {
  small_p50_ms: number;
  small_p99_ms: number;
  capacity_per_s: number;
  w2_ms: number;
}

async function round(r: Runtime, small: string, w2: string): Promise<Round> {
  const url = `${r.base}/api/v1/risk/calculate`;
  const sequential = await runLoad({ url, key: r.key, body: small, mode: 'sequential', count: quick ? 100 : 400 });
  const capacity = await runLoad({ url, key: r.key, body: small, mode: 'closed', concurrency: 16, seconds: quick ? 3 : 8 });
  const w2Runs = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    const start = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'X-API-Key': r.key, 'Content-Type': 'application/json' }, body: w2 });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`W2 ${res.status}`);
    w2Runs.push(performance.now() - start);
  }
  return { small_p50_ms: sequential.latency_ms.p50, small_p99_ms: sequential.latency_ms.p99, capacity_per_s: capacity.requests_per_s, w2_ms: median(w2Runs) };
}

const runtimes = [await onThisMachine(), await inImage()];
try {
  const bodies = [];
  const wideSymbols = readFileSync(generateWide461(), 'utf8').slice(0, 4000).split('\n')[0]!.split(',').slice(1, 21);
  for (const r of runtimes) {
    const sample = await upload(r, path.join(ROOT, 'examples/prices_wide_sample.csv'));
    const wide = await upload(r, generateWide461());
    const small = calculateBody(sample, SAMPLE_SYMBOLS, 10_000);
    const w2 = calculateBody(wide, wideSymbols, quick ? 100_000 : 1_000_000);
    await runLoad({ url: `${r.base}/api/v1/risk/calculate`, key: r.key, body: small, mode: 'sequential', count: 50 }); // warm-up
    bodies.push({ small, w2 });
  }
  const rounds: Round[][] = runtimes.map(() => []);
  for (let i = 0; i < ROUNDS; i++) {
    for (const [j, r] of runtimes.entries()) {
      rounds[j]!.push(await round(r, bodies[j]!.small, bodies[j]!.w2));
      process.stderr.write(`round ${i + 1}/${ROUNDS}: ${r.name} ${JSON.stringify(rounds[j]!.at(-1))}\n`);
    }
  }
  const med = (j: number, k: keyof Round) => median(rounds[j]!.map((x) => x[k]));
  const rows: [string, keyof Round, number][] = [
    ['small request (10 assets × 10k × 10 d), sequential p50, ms', 'small_p50_ms', 2],
    ['small request, sequential p99, ms', 'small_p99_ms', 2],
    ['capacity, small requests, 16 in flight, req/s', 'capacity_per_s', 0],
    [`W2 end to end (20 assets × ${quick ? '100k' : '1M'} × 10 d), median, ms`, 'w2_ms', 1],
  ];
  console.log(`| ${ROUNDS} round(s), ENGINE=wasm, WORKERS=2 | ${runtimes.map((r) => `${r.name}: Node ${r.node}, ${r.uws}`).join(' | ')} | B / A |`);
  console.log('|---|---|---|---|');
  for (const [label, k, digits] of rows)
    console.log(`| ${label} | ${med(0, k).toFixed(digits)} | ${med(1, k).toFixed(digits)} | ${(med(1, k) / med(0, k)).toFixed(2)} |`);
} finally {
  for (const r of runtimes) await r.stop();
}
