// Soak test (not in the default runs; `npm run test:soak`, SOAK_SECONDS default 600): the service
// under a steady half-capacity load; RSS and open file descriptors are sampled every 10 s and must
// stay flat (last third vs first third within 25 % RSS and ±10 fds).
import { readdirSync, readFileSync } from 'node:fs';
import { FileKeyStore } from '../../src/auth/key-store.js';
import { loadKeySecret } from '../../src/auth/secret.js';
import { calcBody, uploadFile } from '../helpers/http.js';
import { loadCalculate } from '../helpers/load.js';
import { spawnService } from '../helpers/process.js';
import { tempDir, testEnv, WIDE_SAMPLE } from '../helpers/service.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 600);

async function main(): Promise<void> {
  const env = testEnv(tempDir('risk-soak-'), { WORKERS: '2', RATE_LIMIT_CALCULATE_PER_MIN: '1000000' });
  const store = new FileKeyStore(env.DATA_DIR!, loadKeySecret(env.SECRET_FILE!));
  const key = (await store.create({ name: 'soak' })).key;
  const svc = await spawnService(env);
  const base = `http://127.0.0.1:${svc.port}`;
  const ds = (await uploadFile(base, key, WIDE_SAMPLE)).body.dataset_id;
  const body = JSON.stringify(calcBody(ds, { simulations: 10_000 }));
  const probe = await loadCalculate(base, key, body, { connections: 8, duration: 5 });
  const rate = Math.max(1, Math.floor(probe.requests.average / 2));
  console.log(`capacity ≈ ${probe.requests.average.toFixed(0)} req/s; soaking at ${rate} req/s for ${seconds} s`);
  const samples: { rss: number; fds: number }[] = [];
  const sample = () => {
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${svc.child.pid}/status`, 'utf8'))?.[1] ?? 0);
    samples.push({ rss, fds: readdirSync(`/proc/${svc.child.pid}/fd`).length });
    console.log(`t=${samples.length * 10}s rss=${(rss / 1024).toFixed(1)} MiB fds=${samples.at(-1)!.fds}`);
  };
  const timer = setInterval(sample, 10_000);
  const run = await loadCalculate(base, key, body, { connections: 8, overallRate: rate, duration: seconds });
  clearInterval(timer);
  svc.child.kill('SIGTERM');
  await svc.exited;
  const third = Math.max(1, Math.floor(samples.length / 3));
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const early = samples.slice(0, third);
  const late = samples.slice(-third);
  const rssGrowth = avg(late.map((s) => s.rss)) / avg(early.map((s) => s.rss)) - 1;
  const fdGrowth = avg(late.map((s) => s.fds)) - avg(early.map((s) => s.fds));
  const ok = run.errors === 0 && run.non2xx === 0 && rssGrowth < 0.25 && Math.abs(fdGrowth) <= 10;
  console.log(
    `requests ${run.requests.total}, errors ${run.errors}, non-2xx ${run.non2xx}; RSS ${(rssGrowth * 100).toFixed(1)} %, fds ${fdGrowth.toFixed(1)}: ${ok ? 'stable' : 'NOT STABLE'}`,
  );
  process.exit(ok ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
