import { type KeyRecord } from '../../auth/key-store.js';
import { ApiError, type ValidationIssue } from '../../contract/errors.js';
import { LIVE_CLOSE, LIVE_MESSAGES, type LivePricesMessage, type LiveSubscribeMessage, type LiveTradesMessage } from '../../contract/live-schemas.js';
import { type CalculateResponseBody } from '../../contract/responses.js';
import { checkLiveRequest, LiveBook } from '../../risk/live-book.js';
import { LiveSubscription } from '../../risk/live-subscription.js';
import { type LivePricer } from '../../risk/live-pricing.js';
import { parseJsonBody } from '../body.js';
import { type RequestHead } from '../exchange.js';
import { compileValidator } from '../validator.js';
import { serializeCalculate } from '../serializers.js';
import { type Config } from '../../config.js';
import { type CalculateRequest } from '../../contract/schemas.js';
import { type AccessGuard } from '../access-guard.js';
import { type LiveMetrics } from './live-metrics.js';
import { publishLiveRiskSent } from '../diagnostics.js';

/** What a session needs of the server (live-hub.ts provides it). */
export interface LiveServices {
  config: Pick<Config, 'liveMessagesPerSec' | 'liveMaxBufferedBytes'>;
  guard: Pick<AccessGuard, 'admit'>;
  metrics: LiveMetrics;
  validateCalculate(value: unknown): CalculateRequest;
  /** Refuses (422) a subscription whose scenarios would exceed LIVE_SCENARIO_MB; returns their bytes. */
  checkScenarioMemory(req: CalculateRequest, first?: CalculateResponseBody, columns?: number): number;
  /** Takes bytes of LIVE_TOTAL_SCENARIO_MB (else 503); `releaseScenarios` gives them back. */
  holdScenarios(bytes: number): void;
  releaseScenarios(bytes: number): void;
  /** Takes one of the key's LIVE_MAX_SUBSCRIPTIONS places (else 429); `release` gives it back. */
  reserve(key: KeyRecord): void;
  release(key: KeyRecord): void;
  /** A new live book's pricer: calculate's answer to each request, its scenarios kept between them. */
  pricer(owner: string): LivePricer;
  apiError(e: unknown): ApiError;
}

/** The socket as a session uses it (uWS's WebSocket, or a test's stand-in). */
export interface LiveSocket {
  send(text: string): void;
  /** Bytes queued and not yet written. */
  buffered(): number;
  end(code: number, reason: string): void;
}

/** The contract's answer to a message of this type that does not parse: the validator of its schema. */
const validators = Object.fromEntries(Object.entries(LIVE_MESSAGES).map(([type, schema]) => [type, compileValidator(schema)])) as {
  [K in keyof typeof LIVE_MESSAGES]: (v: unknown) => unknown;
};

/** The validator's locations start at 'body'; in a live message they start at the message. */
const atMessage = (e: unknown, prefix: string[]): unknown => {
  if (!(e instanceof ApiError) || !Array.isArray(e.extra.errors)) return e;
  const errors = (e.extra.errors as ValidationIssue[]).map((i) => (i.loc[0] === 'body' ? { ...i, loc: [...prefix, ...i.loc.slice(1)] } : i));
  return new ApiError(e.code, e.message, { ...e.extra, errors }, e.headers);
};

interface Entry {
  sub: LiveSubscription | null;
  /** The latest risk message not yet sent because the socket's buffer was full. */
  held: Update | null;
  /** Bytes of LIVE_TOTAL_SCENARIO_MB it holds. */
  bytes: number;
}

/** A risk message written, with what its latency is counted from (`LiveListener.risk`). */
interface Update {
  text: string;
  seq: number;
  since: number;
}

/**
 * One live socket: its key, its subscriptions, and the order of what it sends. A subscription's
 * `risk` messages leave in `seq` order; while the socket's buffer is over the limit only the latest
 * one per subscription waits (backpressure: a slow reader gets fewer, newer updates).
 */
export class LiveSession {
  key: KeyRecord | null = null;
  presented = '';
  private closed = false;
  /** The auth message's key lookup under way: messages behind it wait for it, in order. */
  private authing: Promise<void> | null = null;
  private readonly subs = new Map<string, Entry>();
  private tokens: number;
  private refilled = performance.now();

  constructor(
    private readonly hub: LiveServices,
    private readonly socket: LiveSocket,
    readonly head: RequestHead,
  ) {
    this.tokens = hub.config.liveMessagesPerSec;
  }

  /** One message from the client, received at `receivedAt` (performance.now()). */
  async message(data: ArrayBuffer, receivedAt = performance.now()): Promise<void> {
    let id: string | null = null;
    try {
      const value = parseJsonBody(Buffer.from(data));
      const type = (value as { type?: unknown } | null)?.type;
      if (typeof type !== 'string' || !(type in validators)) {
        throw new ApiError('VALIDATION_ERROR', 'type must be one of: auth, subscribe, prices, trades, unsubscribe', {
          errors: [{ loc: ['type'], msg: 'unknown message type', type: 'value_error' }],
        });
      }
      const checked = (() => {
        try {
          return validators[type as keyof typeof validators](value);
        } catch (e) {
          throw atMessage(e, []);
        }
      })();
      if (type === 'auth') {
        if (this.authing) throw new ApiError('VALIDATION_ERROR', 'This socket is already authenticated.');
        this.authing = this.auth((checked as { key: string }).key);
        return await this.authing;
      }
      if (this.authing) await this.authing;
      if (!this.key) return this.end(LIVE_CLOSE.unauthorized, 'API_KEY_MISSING');
      if (!this.takeToken())
        throw new ApiError('RATE_LIMIT_EXCEEDED', `At most ${this.hub.config.liveMessagesPerSec} messages per second per socket: this one was dropped.`);
      id = (checked as { id: string }).id;
      if (type === 'subscribe') await this.subscribe(checked as LiveSubscribeMessage);
      else if (type === 'prices') this.input(id, (book) => book.setPrices((checked as LivePricesMessage).prices), receivedAt);
      else if (type === 'trades') this.input(id, (book) => book.addTrades((checked as LiveTradesMessage).trades), receivedAt);
      else this.unsubscribe(id);
    } catch (e) {
      // Before its key, a socket is answered nothing: a message that is not a valid auth closes it.
      if (!this.key && this.authing) await this.authing;
      if (!this.key) return this.end(LIVE_CLOSE.unauthorized, 'API_KEY_MISSING');
      this.error(id, e);
    }
  }

  private async auth(presented: string): Promise<void> {
    try {
      this.key = (await this.hub.guard.admit({ ...this.head, apiKeys: [presented] }, null)).key;
      this.presented = presented;
    } catch (e) {
      // The reason is the error's code; a failure that is not the contract's is logged, as over HTTP.
      this.end(LIVE_CLOSE.unauthorized, this.hub.apiError(e).code);
    }
  }

  private async subscribe(msg: LiveSubscribeMessage): Promise<void> {
    if (this.subs.has(msg.id)) throw new ApiError('VALIDATION_ERROR', `The subscription ${msg.id} is already open on this socket.`);
    const key = this.key!;
    let request;
    try {
      request = this.hub.validateCalculate(msg.request);
      checkLiveRequest(request);
    } catch (e) {
      throw atMessage(e, ['request']);
    }
    const bytes = this.hub.checkScenarioMemory(request);
    this.hub.reserve(key);
    const entry: Entry = { sub: null, held: null, bytes: 0 };
    this.subs.set(msg.id, entry);
    try {
      this.hub.holdScenarios(bytes);
      entry.bytes = bytes;
      // A subscription is a calculation first: it takes the calculate bucket's token.
      await this.hub.guard.admit({ ...this.head, apiKeys: [this.presented] }, 'calculate');
      if (this.subs.get(msg.id) !== entry) return; // closed while admitted: price nothing
      const pricer = this.hub.pricer(key.owner);
      const price = (req: CalculateRequest) => pricer.price(req);
      const first = await price(request).catch((e: unknown) => Promise.reject(atMessage(e, ['request'])));
      const kept = this.hub.checkScenarioMemory(request, first, pricer.keptColumns());
      if (this.subs.get(msg.id) !== entry) return; // unsubscribed (or closed) meanwhile
      // Historical windows are counted once the first calculation knows them.
      if (kept > entry.bytes) {
        this.hub.holdScenarios(kept - entry.bytes);
        entry.bytes = kept;
      }
      entry.sub = new LiveSubscription(LiveBook.of(request, first, pricer.market()), price, this.listenerOf(msg.id, entry));
      this.hub.metrics.subscriptions.inc();
      await entry.sub.run();
    } catch (e) {
      if (this.subs.get(msg.id) === entry) this.drop(msg.id);
      throw e;
    }
  }

  private input(id: string, apply: (book: LiveBook) => void, receivedAt: number): void {
    const sub = this.subs.get(id)?.sub;
    if (!sub) throw new ApiError('VALIDATION_ERROR', `No subscription ${id} on this socket has answered yet: wait for its first risk message (seq 0).`);
    sub.input(apply, receivedAt);
  }

  private unsubscribe(id: string): void {
    if (!this.subs.has(id)) throw new ApiError('VALIDATION_ERROR', `No subscription ${id} on this socket.`);
    this.drop(id);
  }

  private drop(id: string): void {
    const entry = this.subs.get(id)!;
    this.subs.delete(id);
    this.hub.releaseScenarios(entry.bytes);
    if (entry.sub) {
      entry.sub.close();
      this.hub.metrics.subscriptions.dec();
    }
    this.hub.release(this.key!);
  }

  private listenerOf(id: string, entry: Entry) {
    return {
      risk: (seq: number, body: CalculateResponseBody, since: number) => {
        this.hub.metrics.updates.inc();
        // serializeCalculate writes {"status":"success","meta":…}: the message is that object with type, id and seq first.
        const update = { text: `{"type":"risk","id":${JSON.stringify(id)},"seq":${seq},${serializeCalculate(body).slice(1)}`, seq, since };
        if (entry.held !== null || this.socket.buffered() > this.hub.config.liveMaxBufferedBytes) {
          if (entry.held !== null) this.hub.metrics.skipped.inc();
          entry.held = update;
          return;
        }
        this.sendUpdate(id, update);
      },
      failed: (_seq: number, e: unknown) => this.error(id, e),
      coalesced: (n: number) => this.hub.metrics.coalesced.inc(n),
    };
  }

  /** The socket's buffer has room again: each subscription's held update goes, oldest subscription first. */
  drain(): void {
    for (const [id, entry] of this.subs) {
      if (entry.held === null) continue;
      if (this.socket.buffered() > this.hub.config.liveMaxBufferedBytes) return;
      const update = entry.held;
      entry.held = null;
      this.sendUpdate(id, update);
    }
  }

  /** A risk message handed to the socket, its latency counted (metrics, diagnostics channel). */
  private sendUpdate(id: string, update: Update): void {
    if (this.closed) return;
    this.send(update.text);
    const ms = performance.now() - update.since;
    this.hub.metrics.sent(ms);
    publishLiveRiskSent({ id, seq: update.seq, ms });
  }

  /** An error message, unless the client has stopped reading: then it is dropped (and counted), so
   * a client that sends without reading cannot make the server queue an answer to each message. */
  private error(id: string | null, e: unknown): void {
    const err = this.hub.apiError(e);
    if (this.socket.buffered() > this.hub.config.liveMaxBufferedBytes) this.hub.metrics.errorsDropped.inc();
    else this.send(JSON.stringify({ type: 'error', id, ...err.body() }));
  }

  private send(text: string): void {
    if (!this.closed) this.socket.send(text);
  }

  /** A token bucket of LIVE_MESSAGES_PER_SEC, refilled continuously. */
  private takeToken(): boolean {
    const perSec = this.hub.config.liveMessagesPerSec;
    const now = performance.now();
    this.tokens = Math.min(perSec, this.tokens + ((now - this.refilled) * perSec) / 1000);
    this.refilled = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  end(code: number, reason: string): void {
    if (this.closed) return;
    this.socket.end(code, reason);
    this.gone();
  }

  /** The socket is gone: every subscription stops and gives its place back. */
  gone(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.subs.keys()]) this.drop(id);
  }
}
