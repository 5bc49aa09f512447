import WebSocket from 'ws';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LiveMessage = Record<string, any>;

/**
 * A client of GET /api/v1/risk/live for tests: every message received is kept in order, and a test
 * waits for the next one matching a predicate (with a generous deadline, never a fixed sleep).
 */
export class LiveClient {
  readonly received: LiveMessage[] = [];
  /** The close code and reason, once the socket closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Indices of the messages `next` has returned. */
  private readonly taken = new Set<number>();
  private wake: (() => void) | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.received.push(JSON.parse(String(data)) as LiveMessage);
      this.wake?.();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => (this.wake?.(), resolve({ code, reason: String(reason) }))));
  }

  static async open(base: string, key?: string): Promise<LiveClient> {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v1/risk/live`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const client = new LiveClient(ws);
    if (key !== undefined) client.send({ type: 'auth', key });
    return client;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first message matching `match` that `next` has not returned yet (others stay for later calls). */
  async next(match: (m: LiveMessage) => boolean = () => true, timeoutMs = 60_000): Promise<LiveMessage> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      for (let i = 0; i < this.received.length; i++) {
        if (this.taken.has(i) || !match(this.received[i]!)) continue;
        this.taken.add(i);
        return this.received[i]!;
      }
      if (this.ws.readyState === WebSocket.CLOSED) throw new Error(`socket closed while waiting; last: ${JSON.stringify(this.received.at(-1))?.slice(0, 300)}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms; last: ${JSON.stringify(this.received.at(-1))?.slice(0, 300)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => (clearTimeout(timer), resolve());
      });
      this.wake = null;
    }
  }

  /** The next `risk` message of subscription `id` with seq ≥ `seq`. */
  risk(id: string, seq = 0): Promise<LiveMessage> {
    return this.next((m) => m.type === 'risk' && m.id === id && m.seq >= seq);
  }

  close(): void {
    this.ws.close();
  }
}
