import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { type WorkAdmission } from '../risk/admission.js';
import { type MergeCounts } from '../risk/simulate-merge.js';
import { type UwsBuild } from './uws-runtime.js';

/** Prometheus metrics of the service (GET /metrics). Labels never carry keys or ids. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly engineSeconds = new Histogram({
    name: 'engine_compute_seconds',
    help: 'Engine compute time per calculation by method',
    labelNames: ['method'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  readonly timeouts = new Counter({
    name: 'calculation_timeouts_total',
    help: 'Calculations answered 503 CALCULATION_TIMEOUT (their deadline passed)',
    registers: [this.registry],
  });
  readonly storageErrors = new Counter({
    name: 'storage_errors_total',
    help: 'Requests answered 503 because the dataset or key store was unavailable',
    registers: [this.registry],
  });

  constructor(
    pool: { queueDepth(): number; threads(): number; inFlight(): number; workerRestarts(): number },
    limiterFallbacks: () => number,
    build: { version: string; engine: string; engineVersion: string; uws?: UwsBuild },
    admission?: WorkAdmission,
    merges?: MergeCounts,
  ) {
    const counters: [string, string, () => number][] = [
      [
        'admission_refusals_total',
        'Calculations answered 503 SERVER_BUSY at once: the work queued before them would not leave them time',
        () => admission?.refusals ?? 0,
      ],
      ['rate_limit_fallback_total', 'Rate-limit decisions taken in this process because the shared store (Redis) was unavailable', limiterFallbacks],
      ['engine_worker_restarts_total', 'Engine worker threads started to replace one that ended (crash, out of memory)', () => pool.workerRestarts()],
      [
        'engine_full_tail_repeats_total',
        "Split Monte Carlo calculations simulated again keeping full tails: the merge could not prove a task's own share of a tail long enough (a book tied at its tail's boundary, or a draw beyond six deviations)",
        () => merges?.fullTailRepeats ?? 0,
      ],
    ];
    for (const [name, help, read] of counters) {
      let counted = 0;
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          const now = read();
          this.inc(now - counted);
          counted = now;
        },
      });
    }
    new Gauge({
      name: 'risk_service_build_info',
      help: 'Always 1; the labels say what runs: service version, engine kind (native or wasm), build and version, Node',
      labelNames: ['version', 'engine_kind', 'engine', 'engine_version', 'node'] as const,
      registers: [this.registry],
    }).set(
      {
        version: build.version,
        // Every build name starts with its kind: native-avx2, native-x86-64, wasm-simd128, wasm-scalar.
        engine_kind: build.engine.startsWith('native') ? 'native' : 'wasm',
        engine: build.engine,
        engine_version: build.engineVersion,
        node: process.version,
      },
      1,
    );
    if (build.uws)
      new Gauge({
        name: 'risk_http_server_info',
        help: 'Always 1; the labels say which uWebSockets.js build serves (package, version, source commit, binary) and on which Node',
        labelNames: ['package', 'version', 'source_commit', 'binary', 'node'] as const,
        registers: [this.registry],
      }).set(
        { package: build.uws.package, version: build.uws.version, source_commit: build.uws.sourceCommit, binary: build.uws.binary, node: process.version },
        1,
      );
    const gauges: [string, string, () => number][] = [
      ['engine_pool_queue_depth', 'Engine tasks waiting for a worker', () => pool.queueDepth()],
      ['engine_tasks_in_flight', 'Engine tasks submitted and not yet finished (running or waiting)', () => pool.inFlight()],
      ['engine_pool_threads', 'Engine worker threads', () => pool.threads()],
      ['admission_queued_work_ms', 'Estimated worker-ms of the calculations admitted and not yet finished', () => admission?.queuedWorkMs ?? 0],
      ['admission_cost_per_unit_ns', 'The cost model: estimated ns of worker time per work unit', () => admission?.costPerUnitNs ?? 0],
    ];
    for (const [name, help, read] of gauges) {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read());
        },
      });
    }
    // Per owner, so an operator sees who is admitted and who is refused (owners are as few as their keys).
    const counted = new Map<string, number>();
    new Counter({
      name: 'admission_decisions_total',
      help: 'Calculations admitted or refused (503 SERVER_BUSY or CALCULATION_TIMEOUT at once) by admission, per owner',
      labelNames: ['owner', 'decision'] as const,
      registers: [this.registry],
      collect() {
        for (const [owner, counts] of admission?.byOwner ?? []) {
          for (const decision of ['admitted', 'refused'] as const) {
            const key = `${owner}\u0000${decision}`;
            const now = counts[decision];
            this.inc({ owner, decision }, now - (counted.get(key) ?? 0));
            counted.set(key, now);
          }
        }
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }
}
