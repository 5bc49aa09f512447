import { type TemplatedApp, type WebSocket } from 'uWebSockets.js';
import { type KeyRecord } from '../../auth/key-store.js';
import { type Config } from '../../config.js';
import { ApiError } from '../../contract/errors.js';
import { LIVE_CLOSE } from '../../contract/live-schemas.js';
import { type CalculateResponseBody } from '../../contract/responses.js';
import { MONTE_CARLO, type CalculateRequest } from '../../contract/schemas.js';
import { LivePricing, type LivePricer } from '../../risk/live-pricing.js';
import { symbolsOf } from '../../risk/books.js';
import { groupSumsColumns } from '../../risk/kept-scenarios.js';
import { type AppContext } from '../context.js';
import { Exchange, readHead, type RequestHead } from '../exchange.js';
import { apiErrorOf } from '../failure.js';
import { JSON_BODY_LIMIT } from '../body.js';
import { LiveMetrics } from './live-metrics.js';
import { LiveSession, type LiveServices } from './live-session.js';
import { cashAsPositions } from '../../risk/fx/cash.js';
import { splitOptions } from '../../risk/options/option-positions.js';

export const LIVE_PATH = '/api/v1/risk/live';

/** The contract's time for the first message (api.md §17). */
const AUTH_TIMEOUT_MS = 5000;

interface SocketData {
  head: RequestHead;
  session?: LiveSession;
}

/**
 * Every live socket of the server: the per-key subscription counts, the revocation sweep and the
 * drain at shutdown. Subscriptions price through `calculate` itself, so a live figure is the
 * figure of a calculation by construction.
 */
export class LiveHub implements LiveServices {
  readonly config: Config;
  readonly guard: AppContext['guard'];
  readonly validateCalculate: AppContext['validateCalculate'];
  readonly metrics: LiveMetrics;
  private readonly sessions = new Set<LiveSession>();
  private readonly perKey = new Map<string, number>();
  /** Scenario bytes every subscription together holds (LIVE_TOTAL_SCENARIO_MB bounds them). */
  private keptBytes = 0;
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly ctx: AppContext) {
    this.config = ctx.config;
    this.guard = ctx.guard;
    this.validateCalculate = ctx.validateCalculate;
    this.metrics = new LiveMetrics(ctx.metrics.registry);
    // A revoked key's sockets close within one reload interval of the registry noticing.
    this.sweep = setInterval(() => void this.closeRevoked(), ctx.config.keyReloadMs);
    this.sweep.unref();
  }

  /** Routes GET /api/v1/risk/live to uWS's own WebSocket (before the app's catch-all route). */
  attach(app: TemplatedApp): void {
    app.ws<SocketData>(LIVE_PATH, {
      maxPayloadLength: JSON_BODY_LIMIT,
      idleTimeout: this.config.liveIdleTimeoutS,
      // Backpressure is the session's (it holds the latest update); uWS never drops one itself.
      maxBackpressure: 0,
      closeOnBackpressureLimit: false,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => {
        const head = readHead(req, res);
        if (this.ctx.draining()) {
          // The contract's error, as an HTTP request during the drain gets it.
          new Exchange(res, head, this.ctx.log).error(new ApiError('SERVER_BUSY', 'The server is shutting down.', {}, { 'Retry-After': '1' }));
          return;
        }
        res.upgrade<SocketData>(
          { head },
          req.getHeader('sec-websocket-key'),
          req.getHeader('sec-websocket-protocol'),
          req.getHeader('sec-websocket-extensions'),
          context,
        );
      },
      open: (ws) => this.open(ws),
      message: (ws, message) => {
        const receivedAt = performance.now();
        // uWS reuses the message's memory after this call: copy before any await.
        const copy = message.slice(0);
        void ws.getUserData().session?.message(copy, receivedAt);
      },
      drain: (ws) => ws.getUserData().session?.drain(),
      close: (ws) => {
        const session = ws.getUserData().session;
        if (!session) return;
        session.gone();
        this.sessions.delete(session);
        this.metrics.sockets.dec();
      },
    });
  }

  private open(ws: WebSocket<SocketData>): void {
    const data = ws.getUserData();
    const session = new LiveSession(
      this,
      {
        send: (text) => ws.cork(() => ws.send(text)),
        buffered: () => ws.getBufferedAmount(),
        end: (code, reason) => ws.end(code, reason),
      },
      data.head,
    );
    data.session = session;
    this.sessions.add(session);
    this.metrics.sockets.inc();
    setTimeout(() => {
      if (!session.key) session.end(LIVE_CLOSE.unauthorized, 'auth timeout');
    }, AUTH_TIMEOUT_MS).unref();
  }

  /** A live book's pricer: its scenarios kept after the first calculation (risk/live-pricing.ts). */
  pricer(owner: string): LivePricer {
    const pricing = new LivePricing(this.ctx.calculator, owner);
    return {
      price: async (req) => {
        const body = await pricing.price(req);
        this.ctx.metrics.engineSeconds.observe({ method: req.method }, body.meta.timing_ms.engine / 1000);
        return body;
      },
      market: () => pricing.market,
      keptColumns: () => pricing.keptColumns,
    };
  }

  /** A place among the key's LIVE_MAX_SUBSCRIPTIONS, or 429. */
  reserve(key: KeyRecord): void {
    const open = this.perKey.get(key.id) ?? 0;
    if (open >= this.config.liveMaxSubscriptions) {
      throw new ApiError('RATE_LIMIT_EXCEEDED', `This key has ${open} live subscriptions open, the most LIVE_MAX_SUBSCRIPTIONS allows: unsubscribe one first.`);
    }
    this.perKey.set(key.id, open + 1);
  }

  release(key: KeyRecord): void {
    const open = (this.perKey.get(key.id) ?? 1) - 1;
    if (open <= 0) this.perKey.delete(key.id);
    else this.perKey.set(key.id, open);
  }

  /**
   * Takes `bytes` of LIVE_TOTAL_SCENARIO_MB, the scenario memory of every subscription together, else
   * 503: one owner's subscriptions, each within LIVE_SCENARIO_MB, cannot take the memory every other
   * owner's live books and calculations need. `releaseScenarios` gives it back.
   */
  holdScenarios(bytes: number): void {
    const limit = this.config.liveTotalScenarioMb * 1024 ** 2;
    if (this.keptBytes + bytes > limit) {
      throw new ApiError(
        'SERVER_BUSY',
        `Busy: live subscriptions keep ${Math.ceil(this.keptBytes / 1024 ** 2)} MiB of scenarios; this one's ${Math.ceil(bytes / 1024 ** 2)} MiB more would exceed LIVE_TOTAL_SCENARIO_MB (${this.config.liveTotalScenarioMb}).`,
      );
    }
    this.keptBytes += bytes;
    this.metrics.scenarioBytes.set(this.keptBytes);
  }

  releaseScenarios(bytes: number): void {
    this.keptBytes -= bytes;
    this.metrics.scenarioBytes.set(this.keptBytes);
  }

  /**
   * The scenarios a subscription keeps (its units, their group sums and kept worst rows, as doubles),
   * within LIVE_SCENARIO_MB, else 422. Monte Carlo's count is known from the request; historical's
   * (its windows) from `first`. Returns their bytes.
   */
  checkScenarioMemory(req: CalculateRequest, first?: CalculateResponseBody, columns = 0): number {
    const scenarios = MONTE_CARLO.has(req.method) ? (req.simulations ?? 0) : (first?.meta.simulations ?? 0);
    // A multi-currency book keeps more columns than symbols (each foreign one also without FX, and
    // group sums for two books): known after its first pricing. Before it, the symbols and one
    // book's group sums (a column per PNL_GROUP symbols) and kept worst rows.
    const symbols = new Set(symbolsOf(cashAsPositions(splitOptions(req).req).book)).size;
    const bytes = Math.ceil(scenarios * Math.max(columns, symbols + groupSumsColumns(1, symbols)) * 8);
    const limit = this.config.liveScenarioMb * 1024 ** 2;
    if (bytes > limit) {
      throw new ApiError(
        'VALIDATION_ERROR',
        `The subscription would keep ${Math.ceil(bytes / 1024 ** 2)} MiB of scenarios; LIVE_SCENARIO_MB allows ${this.config.liveScenarioMb}.`,
        {
          errors: [
            {
              loc: ['request', 'simulations'],
              msg: 'scenarios × (symbols, their group sums and kept worst rows) × 8 bytes exceeds LIVE_SCENARIO_MB',
              type: 'value_error',
            },
          ],
        },
      );
    }
    return bytes;
  }

  /** A failure as the contract's error, mapped as an HTTP answer's is. */
  apiError(e: unknown): ApiError {
    return apiErrorOf(e, this.ctx.metrics, this.ctx.log, LIVE_PATH);
  }

  private async closeRevoked(): Promise<void> {
    for (const session of this.sessions) {
      if (session.key && !(await this.guard.isLive(session.presented))) session.end(LIVE_CLOSE.unauthorized, 'API_KEY_INVALID');
    }
  }

  /** SIGTERM: every live socket closes with 1001 (going away), its computations dropped. */
  drain(): void {
    clearInterval(this.sweep);
    for (const session of this.sessions) session.end(LIVE_CLOSE.goingAway, 'server shutting down');
  }

  get openSockets(): number {
    return this.sessions.size;
  }
}
