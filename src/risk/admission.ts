/** Admitted work may fill this share of a deadline: the rest absorbs the estimate's error. */
export const ADMIT_SHARE = 0.75;

/** Calculations smaller than this teach the cost model nothing (their time is mostly overhead). */
const LEARN_MIN_UNITS = 2e6;

/** Least weight of the newest observation in the running ns-per-unit estimate (the first ones weigh more). */
const LEARN_RATE = 0.3;

/** A calculation refused because the work queued before it would not leave it time to finish. */
export class OverloadError extends Error {
  constructor(
    /** Whole seconds until the admitted work that blocks it is estimated to be done, or stopped by its deadline (at least 1). */
    readonly retryAfterS: number,
    readonly queuedMs: number,
    /** Whether only the caller's own work blocks it (its owner is over its share), not everyone's. */
    readonly ownerOverShare = false,
    /** Whether it is memory, not time, that the admitted work leaves too little of. */
    readonly memory = false,
  ) {
    super('the work queued before this calculation would not leave it time to finish before its deadline');
    this.name = 'OverloadError';
  }
}

/** A calculation whose own estimate is far beyond its deadline: it would only time out, even alone. */
export class BeyondDeadlineError extends Error {
  constructor(
    readonly estimatedMs: number,
    readonly budgetMs: number,
  ) {
    super(`estimated at ${Math.round(estimatedMs)} ms of compute on every worker, beyond the ${budgetMs} ms deadline`);
    this.name = 'BeyondDeadlineError';
  }
}

/** A calculation refused at once when its own estimate, spread over every worker, exceeds this many deadlines (the estimate's error margin). */
export const OWN_ESTIMATE_LIMIT = 2;

/** Default share of the admissible work one owner may hold (ADMISSION_OWNER_SHARE): the rest stays open to the others. */
export const DEFAULT_OWNER_SHARE = 0.5;

/**
 * What a completed calculation measured: its wall time less the time its tasks waited for a worker
 * (so the engine's compute and the work around it, on this thread), and its engine tasks.
 */
export interface Measured {
  busyMs: number;
  tasks: number;
}

/** An admitted calculation: release it once, with what it measured when it completed. */
export interface Ticket {
  release(measured?: Measured): void;
}

/** An admitted calculation's estimated worker-ms and bytes, its owner and when its deadline stops it (Date.now() ms). */
interface Admitted {
  costMs: number;
  bytes: number;
  owner: string;
  endsBy: number;
}

/** Per-owner counts of what admission decided, for /metrics. */
export interface OwnerCounts {
  admitted: number;
  refused: number;
}

/**
 * Admission with goodput and fairness. A calculation is admitted only if
 * - its own estimate, spread over the workers, is within OWN_ESTIMATE_LIMIT deadlines (else
 *   BeyondDeadlineError: even alone it would only time out);
 * - the work already admitted and unfinished plus its own, spread over the workers, is estimated
 *   to end before ADMIT_SHARE of its deadline — the first calculation on an idle service excepted;
 * - its owner's admitted work plus its own stays within `ownerShare` of that admissible work — an
 *   owner with nothing admitted excepted — so one owner cannot take every worker from the others;
 * - the bytes the admitted work holds at its peak plus its own (`workBytes`) stay within
 *   `memoryBytes` — the first calculation on an idle service, and one that holds none, excepted.
 * Otherwise it is refused at once (OverloadError) rather than computed until it times out, with a
 * Retry-After no longer than the blocking work can still run (its deadline stops it).
 * The cost model — ns of worker time per unit of `workUnits` — is calibrated at start and follows
 * the calculations it measures.
 */
export class WorkAdmission {
  private readonly admitted = new Set<Admitted>();
  /** Measurements behind the estimate, the calibration included. */
  private observations = 1;
  /** Calculations refused so far. */
  refusals = 0;
  /** Admitted and refused calculations by owner. */
  readonly byOwner = new Map<string, OwnerCounts>();

  constructor(
    private readonly workers: number,
    private nsPerUnit: number,
    private readonly ownerShare = DEFAULT_OWNER_SHARE,
    /** Peak bytes the admitted calculations may hold together (ADMISSION_MEMORY_MB). */
    private readonly memoryBytes = Infinity,
  ) {}

  /** The current estimate, ns of worker time per work unit. */
  get costPerUnitNs(): number {
    return this.nsPerUnit;
  }

  /** Estimated worker-ms of the calculations admitted and not yet finished. */
  get queuedWorkMs(): number {
    // Summed from the admitted set: no running total to drift or leave residue behind.
    let sum = 0;
    for (const x of this.admitted) sum += x.costMs;
    return sum;
  }

  /** Peak bytes of the calculations admitted and not yet finished. */
  get admittedBytes(): number {
    let sum = 0;
    for (const x of this.admitted) sum += x.bytes;
    return sum;
  }

  private count(owner: string, key: keyof OwnerCounts): void {
    const counts = this.byOwner.get(owner) ?? { admitted: 0, refused: 0 };
    counts[key]++;
    this.byOwner.set(owner, counts);
  }

  /** Whole seconds until `blocking` work is estimated done or stopped by its deadlines, at least 1. */
  private retryAfterS(blocking: Admitted[], now: number): number {
    const workMs = blocking.reduce((a, x) => a + x.costMs, 0) / this.workers;
    const stoppedMs = Math.max(0, ...blocking.map((x) => x.endsBy - now));
    return Math.max(1, Math.ceil(Math.min(workMs, stoppedMs) / 1000));
  }

  private refuse(owner: string, blocking: Admitted[], now: number, ownerOverShare: boolean, memory = false): OverloadError {
    this.refusals++;
    this.count(owner, 'refused');
    return new OverloadError(this.retryAfterS(blocking, now), this.queuedWorkMs, ownerOverShare, memory);
  }

  /** Admits `owner`'s calculation of `units` that must end within `budgetMs`, or throws OverloadError / BeyondDeadlineError. */
  admit(units: number, budgetMs: number, owner = '', bytes = 0): Ticket {
    const now = Date.now();
    const costMs = (units * this.nsPerUnit) / 1e6;
    if (costMs / this.workers > OWN_ESTIMATE_LIMIT * budgetMs) {
      this.refusals++;
      this.count(owner, 'refused');
      throw new BeyondDeadlineError(costMs / this.workers, budgetMs);
    }
    const capacityMs = ADMIT_SHARE * budgetMs * this.workers;
    const all = [...this.admitted];
    if (all.length > 0 && this.queuedWorkMs + costMs > capacityMs) throw this.refuse(owner, all, now, false);
    if (all.length > 0 && bytes > 0 && this.admittedBytes + bytes > this.memoryBytes) throw this.refuse(owner, all, now, false, true);
    const own = all.filter((x) => x.owner === owner);
    const ownMs = own.reduce((a, x) => a + x.costMs, 0);
    if (own.length > 0 && ownMs + costMs > this.ownerShare * capacityMs) throw this.refuse(owner, own, now, true);
    const entry: Admitted = { costMs, bytes, owner, endsBy: now + budgetMs };
    this.admitted.add(entry);
    this.count(owner, 'admitted');
    let open = true;
    return {
      release: (measured?: Measured) => {
        if (!open) return;
        open = false;
        this.admitted.delete(entry);
        // Tasks beyond the worker count ran one after another: the slowest ones already add up.
        if (measured) this.learn(units, measured.busyMs * Math.min(Math.max(1, measured.tasks), this.workers));
      },
    };
  }

  /** Moves the estimate toward a measured calculation of `units` that took `workerMs` of worker time. */
  learn(units: number, workerMs: number): void {
    if (units < LEARN_MIN_UNITS || !(workerMs > 0) || !Number.isFinite(workerMs)) return;
    // A running mean at first (the calibration is one small calculation), then an exponential one.
    this.observations++;
    this.nsPerUnit += Math.max(LEARN_RATE, 1 / this.observations) * ((workerMs * 1e6) / units - this.nsPerUnit);
  }
}
