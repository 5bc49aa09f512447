/**
 * One probe at a time, its answer shared: callers that arrive while a probe runs get its result,
 * and a success is reused for `reuseMs` (readiness is polled by many load balancers at once, and
 * overlapping probes must neither race nor pile up I/O). A failure is not reused, so a store that
 * comes back is seen at the next probe.
 */
export class SharedProbe {
  private inFlight: Promise<boolean> | null = null;
  private lastOkAt = -Infinity;

  constructor(
    private readonly probe: () => Promise<boolean>,
    private readonly reuseMs = 1_000,
  ) {}

  run(): Promise<boolean> {
    if (performance.now() - this.lastOkAt < this.reuseMs) return Promise.resolve(true);
    this.inFlight ??= this.probe()
      .catch(() => false)
      .then((ok) => {
        if (ok) this.lastOkAt = performance.now();
        this.inFlight = null;
        return ok;
      });
    return this.inFlight;
  }
}
