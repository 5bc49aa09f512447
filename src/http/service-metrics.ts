import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
    help: 'HTTP request latency by route',
    labelNames: ['route'] as const,
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

  constructor(pool: { queueDepth(): number; threads(): number; inFlight(): number }, limiterFallbacks: () => number) {
    let counted = 0;
    new Counter({
      name: 'rate_limit_fallback_total',
      help: 'Rate-limit decisions taken in this process because the shared store (Redis) was unavailable',
      registers: [this.registry],
      collect() {
        const now = limiterFallbacks();
        this.inc(now - counted);
        counted = now;
      },
    });
    const gauges: [string, string, () => number][] = [
      ['engine_pool_queue_depth', 'Engine tasks waiting for a worker', () => pool.queueDepth()],
      ['engine_tasks_in_flight', 'Engine tasks submitted and not yet finished (running or waiting)', () => pool.inFlight()],
      ['engine_pool_threads', 'Engine worker threads', () => pool.threads()],
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
    collectDefaultMetrics({ register: this.registry });
  }
}
