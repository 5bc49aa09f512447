import { type CalculateRequest } from '../contract/schemas.js';
import { type CalculateResponseBody } from '../contract/responses.js';
import { type LiveBook } from './live-book.js';

/** What a subscription tells its socket: a new figure set (with the inputs it includes), or a failure. */
export interface LiveListener {
  /** `since` (performance.now()): the arrival of the first input it includes, else its computation's start. */
  risk(seq: number, body: CalculateResponseBody, since: number): void;
  failed(seq: number, error: unknown): void;
  /** Inputs that were merged into a later computation instead of computed on their own. */
  coalesced(count: number): void;
}

/**
 * One live book and its computations. At most one runs at a time: inputs arriving meanwhile change
 * the book at once and are priced together by the next one (latest state wins), so a burst of ticks
 * costs two computations, and every `risk` message's `seq` (the number of inputs it includes) is
 * larger than the one before it.
 */
export class LiveSubscription {
  /** Inputs applied so far (prices and trades messages accepted). */
  private inputs = 0;
  /** The inputs the last computation included. */
  private priced = 0;
  private running = false;
  private closed = false;
  /** When the first input not yet included in a computation arrived (performance.now()), if any. */
  private waitingSince: number | null = null;

  constructor(
    readonly book: LiveBook,
    private readonly price: (req: CalculateRequest) => Promise<CalculateResponseBody>,
    private readonly listener: LiveListener,
  ) {}

  /**
   * Applies one input, received at `receivedAt` (performance.now()), to the book (it throws,
   * changing nothing, when the input is refused), then prices.
   */
  input(apply: (book: LiveBook) => void, receivedAt = performance.now()): void {
    apply(this.book);
    this.inputs++;
    this.waitingSince ??= receivedAt;
    if (this.running) return;
    void this.run();
  }

  /** Prices the book as it is now (seq = the inputs applied), again while inputs arrived meanwhile. */
  async run(): Promise<void> {
    this.running = true;
    try {
      for (;;) {
        const seq = this.inputs;
        const since = this.waitingSince ?? performance.now();
        this.waitingSince = null;
        // Inputs after the last computation's and before this one's, less the one this prices itself.
        if (seq - this.priced > 1) this.listener.coalesced(seq - this.priced - 1);
        this.priced = seq;
        try {
          const body = await this.price(this.book.request());
          if (!this.closed) this.listener.risk(seq, body, since);
        } catch (e) {
          if (!this.closed) this.listener.failed(seq, e);
        }
        if (this.closed || this.inputs === seq) return;
      }
    } finally {
      this.running = false;
    }
  }

  /** No message is sent after this; a computation under way finishes and is dropped. */
  close(): void {
    this.closed = true;
  }
}
