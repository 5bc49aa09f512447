// The load generator of the latency benchmark, in a process of its own so that its work does not
// sit on the service's event loop. Modes: `sequential` (one request at a time), `closed` (N in
// flight: capacity) and `open` (requests sent on a fixed schedule whatever the answers, latency
// counted from the scheduled send time, so a stalled server cannot hide its queue). Prints one
// JSON line: the latencies' percentiles and counts.
import http from 'node:http';
import { tailSummary } from './lib/stats.js';

export interface LoadPlan {
  url: string;
  key: string;
  body: string;
  mode: 'sequential' | 'closed' | 'open';
  /** sequential: requests; closed and open: seconds of load. */
  count?: number;
  seconds?: number;
  /** closed: requests in flight. */
  concurrency?: number;
  /** open: requests per second. */
  rate?: number;
}

export interface LoadFigures {
  mode: LoadPlan['mode'];
  sent: number;
  ok: number;
  failed: number;
  /** The failed requests by what failed them: an HTTP status, or the connection error's code. */
  failures: Record<string, number>;
  seconds: number;
  requests_per_s: number;
  /** Client-side latency (ms): p50, p99, p99.9, max. */
  latency_ms: { p50: number; p99: number; p999: number; max: number };
  /** sequential and open: the server's `meta.timing_ms.total` and `.engine` (ms), p50 and p99. */
  server_total_ms?: { p50: number; p99: number };
  server_engine_ms?: { p50: number; p99: number };
  /** sequential and open: the server's wait for a worker (`timing_ms.queue`). */
  server_queue_ms?: { p50: number; p99: number };
  /** open only: how late the generator itself sent after the scheduled time. */
  send_lag_ms?: { p50: number; p99: number };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/** An answer: its status and body, or status 0 and the connection error's code. */
interface Answer {
  status: number;
  body: string;
  error?: string;
}

function post(plan: LoadPlan, keepBody: boolean): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.request(
      plan.url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': plan.key, 'content-length': Buffer.byteLength(plan.body) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (keepBody) body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, body: '', error: e.code ?? e.message }));
    req.end(plan.body);
  });
}

/** The requests that failed, by status (or connection error). */
class Failures {
  readonly by: Record<string, number> = {};
  /** Whether `r` failed (counted if so). */
  note(r: Answer): boolean {
    if (r.status === 200) return false;
    const what = r.status === 0 ? (r.error ?? 'connection') : String(r.status);
    this.by[what] = (this.by[what] ?? 0) + 1;
    return true;
  }
  get count(): number {
    return Object.values(this.by).reduce((a, n) => a + n, 0);
  }
}

/** The server's own timing of its answers (`meta.timing_ms`). */
class ServerTimings {
  readonly total: number[] = [];
  readonly engine: number[] = [];
  readonly queue: number[] = [];
  add(body: string): void {
    const timing = (JSON.parse(body) as { meta: { timing_ms: { total: number; engine: number; queue: number } } }).meta.timing_ms;
    this.total.push(timing.total);
    this.engine.push(timing.engine);
    this.queue.push(timing.queue);
  }
}

const p50p99 = (xs: number[]) => {
  const { p50, p99 } = tailSummary(xs);
  return { p50, p99 };
};

async function sequential(plan: LoadPlan): Promise<LoadFigures> {
  const latencies: number[] = [];
  const server = new ServerTimings();
  const failures = new Failures();
  const started = performance.now();
  for (let i = 0; i < (plan.count ?? 200); i++) {
    const t0 = performance.now();
    const r = await post(plan, true);
    latencies.push(performance.now() - t0);
    if (!failures.note(r)) server.add(r.body);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    ...counts(plan, latencies.length, failures, seconds, latencies),
    server_total_ms: p50p99(server.total),
    server_engine_ms: p50p99(server.engine),
    server_queue_ms: p50p99(server.queue),
  };
}

function counts(plan: LoadPlan, sent: number, failures: Failures, seconds: number, latencies: number[]): LoadFigures {
  const failed = failures.count;
  return {
    mode: plan.mode,
    sent,
    ok: sent - failed,
    failed,
    failures: failures.by,
    seconds,
    requests_per_s: (sent - failed) / seconds,
    latency_ms: tailSummary(latencies),
  };
}

async function closed(plan: LoadPlan): Promise<LoadFigures> {
  const latencies: number[] = [];
  const failures = new Failures();
  const end = performance.now() + (plan.seconds ?? 3) * 1000;
  const started = performance.now();
  const lane = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const r = await post(plan, false);
      latencies.push(performance.now() - t0);
      failures.note(r);
    }
  };
  await Promise.all(Array.from({ length: plan.concurrency ?? 16 }, lane));
  return counts(plan, latencies.length, failures, (performance.now() - started) / 1000, latencies);
}

async function open(plan: LoadPlan): Promise<LoadFigures> {
  const rate = plan.rate ?? 100;
  const total = Math.max(1, Math.round(rate * (plan.seconds ?? 3)));
  const interval = 1000 / rate;
  const latencies: number[] = [];
  const lags: number[] = [];
  const answers: string[] = [];
  const pending: Promise<void>[] = [];
  const failures = new Failures();
  const start = performance.now() + 20;
  let next = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      for (; next < total && start + next * interval <= performance.now(); next++) {
        const scheduled = start + next * interval;
        lags.push(performance.now() - scheduled);
        pending.push(
          post(plan, true).then((r) => {
            latencies.push(performance.now() - scheduled);
            // Parsed after the run: the generator's event loop only sends and receives.
            if (!failures.note(r)) answers.push(r.body);
          }),
        );
      }
      if (next < total) setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
      else done();
    };
    setTimeout(tick, 20);
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  const server = new ServerTimings();
  answers.forEach((body) => server.add(body));
  return {
    ...counts(plan, latencies.length, failures, elapsed, latencies),
    server_total_ms: p50p99(server.total),
    server_engine_ms: p50p99(server.engine),
    server_queue_ms: p50p99(server.queue),
    send_lag_ms: p50p99(lags),
  };
}

async function main(): Promise<void> {
  const plan = JSON.parse(process.argv[2] ?? '{}') as LoadPlan;
  const run = { sequential, closed, open }[plan.mode];
  process.stdout.write(JSON.stringify(await run(plan)) + '\n');
  agent.destroy();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
