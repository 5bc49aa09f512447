import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Prometheus metrics of live risk (GET /api/v1/risk/live), on the service's registry. */
export class LiveMetrics {
  readonly sockets: Gauge;
  readonly subscriptions: Gauge;
  readonly scenarioBytes: Gauge;
  readonly updates: Counter;
  readonly coalesced: Counter;
  readonly skipped: Counter;
  readonly errorsDropped: Counter;
  readonly latency: Histogram;

  constructor(registry: Registry) {
    const registers = [registry];
    this.sockets = new Gauge({ name: 'live_sockets', help: 'Live risk WebSockets open', registers });
    this.subscriptions = new Gauge({ name: 'live_subscriptions', help: 'Live subscriptions open (answered their first risk message)', registers });
    this.scenarioBytes = new Gauge({
      name: 'live_scenario_bytes',
      help: 'Scenario memory held for live subscriptions (kept units, their group sums and kept worst rows), bounded by LIVE_TOTAL_SCENARIO_MB',
      registers,
    });
    this.updates = new Counter({ name: 'live_updates_total', help: 'Live risk messages computed (seq 0 included)', registers });
    this.coalesced = new Counter({
      name: 'live_coalesced_inputs_total',
      help: 'Live inputs (prices, trades) merged into a later computation instead of priced on their own',
      registers,
    });
    this.skipped = new Counter({
      name: 'live_updates_superseded_total',
      help: "Live risk messages never sent: a newer one replaced them while the socket's buffer was full (slow reader)",
      registers,
    });
    this.errorsDropped = new Counter({
      name: 'live_errors_dropped_total',
      help: "Live error messages never sent: the socket's buffer was full (a client sending without reading)",
      registers,
    });
    this.latency = new Histogram({
      name: 'live_update_seconds',
      help: 'From the arrival of the first input a live risk message includes (seq 0: its computation start) to the message handed to the socket',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
  }

  /** One risk message handed to its socket, `ms` after what it is counted from (`live_update_seconds`). */
  sent(ms: number): void {
    this.latency.observe(ms / 1000);
  }
}
