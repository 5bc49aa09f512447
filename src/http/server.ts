import { type HttpResponse } from 'uWebSockets.js';
import { batchRequestSchema, calculateRequestSchema } from '../contract/schemas.js';
import { StressRequest } from '../contract/stress-schemas.js';
import { backtestRequestSchema } from '../contract/backtest-schemas.js';
import { buildOpenApi } from '../contract/openapi.js';
import { AccessGuard } from './access-guard.js';
import { type AppContext, type HttpServices } from './context.js';
import { ServiceMetrics } from './service-metrics.js';
import { compileValidator } from './validator.js';
import { ApiError } from '../contract/errors.js';
import { apiErrorOf, isUnexpected } from './failure.js';
import { Exchange, readHead } from './exchange.js';
import { Router } from './router.js';
import { checkUwsRuntime, loadUws, type UwsBuild } from './uws-runtime.js';

export { checkUwsRuntime };
import { SERVICE_VERSION } from '../paths.js';
import { batchRoute, calculateRoute } from './routes/calculate-route.js';
import { stressRoute } from './routes/stress-route.js';
import { backtestRoute } from './routes/backtest-route.js';
import { deleteDatasetRoute, getDatasetRoute } from './routes/dataset-route.js';
import { healthRoute, metricsRoute, openapiRoute, readyRoute } from './routes/ops-routes.js';
import { uploadRoute } from './routes/upload-route.js';
import { consolePage, docsPage } from './routes/page-routes.js';
import { listDatasetsRoute } from './routes/dataset-list-route.js';
import { liveWithoutUpgradeRoute } from './routes/live-route.js';
import { LIVE_PATH, LiveHub } from './live/live-hub.js';
import { publishHttpAnswered } from './diagnostics.js';

export function buildRouter(): Router {
  const docs = docsPage();
  const page = consolePage();
  return (
    new Router()
      .add('/healthz', { GET: healthRoute })
      .add('/readyz', { GET: readyRoute })
      .add('/metrics', { GET: metricsRoute })
      .add('/api/v1/openapi.json', { GET: openapiRoute })
      .add('/api/v1/risk/datasets', { GET: listDatasetsRoute })
      .add('/api/v1/risk/datasets/upload', { POST: uploadRoute })
      .add('/api/v1/risk/calculate', { POST: calculateRoute })
      .add('/api/v1/risk/calculate/batch', { POST: batchRoute })
      .add('/api/v1/risk/stress', { POST: stressRoute })
      .add('/api/v1/risk/backtest', { POST: backtestRoute })
      .add('/api/v1/risk/datasets/:id', { GET: getDatasetRoute, DELETE: deleteDatasetRoute })
      // A GET without Upgrade: websocket reaches this router, not uWS's WebSocket route.
      .add(LIVE_PATH, { GET: liveWithoutUpgradeRoute })
      .add('/docs', { GET: docs })
      .add('/docs/:file', { GET: docs })
      .add('/console', { GET: page })
      .add('/console/:file', { GET: page })
  );
}

export interface HttpServer {
  port: number;
  /** Requests being handled now. */
  inFlight(): number;
  /** Stops accepting connections (in-flight requests go on). */
  stopListening(): void;
  /** Closes every live risk socket (1001, going away). */
  closeLiveSockets(): void;
}

/** The handlers' context, built from the domain's services: guard, validator, OpenAPI, metrics. */
function contextOf(s: HttpServices, uws: UwsBuild): AppContext {
  const requestSchema = calculateRequestSchema(s.config.maxSimulations);
  const batchSchema = batchRequestSchema(s.config.maxSimulations);
  const backtestSchema = backtestRequestSchema(s.config.maxSimulations);
  const metrics = new ServiceMetrics(
    s.pool,
    s.limiterFallbacks,
    { version: SERVICE_VERSION, engine: s.calculator.engine.build, engineVersion: s.calculator.engine.version, uws },
    s.calculator.admission,
    s.calculator.mergeCounts,
  );
  return {
    config: s.config,
    log: s.log,
    guard: new AccessGuard(s.keys, s.limiter, s.config, metrics.registry),
    datasets: s.datasets,
    calculator: s.calculator,
    metrics,
    validateCalculate: compileValidator(requestSchema),
    validateBatch: compileValidator(batchSchema),
    validateStress: compileValidator(StressRequest),
    validateBacktest: compileValidator(backtestSchema),
    openapi: buildOpenApi({ calculate: requestSchema, batch: batchSchema, backtest: backtestSchema }, s.calculator.engine.version),
    ready: () => s.pool.threads() > 0,
    draining: s.draining,
  };
}

/** The uWS app: one dispatcher for every path, so 404/405/errors share one shape. */
export function startHttpServer(services: HttpServices): Promise<HttpServer> {
  // The newest build that loads here (see uws-runtime.ts): its binary, never a JavaScript shim.
  const { uws: uWS, build } = loadUws();
  services.log.info({ uws: build.package, uws_version: build.version, uws_source_commit: build.sourceCommit, node: process.version }, 'http layer');
  // uWS writes `uWebSockets: 20` on every answer unless its loop is silent; `_cfg('silent')` is
  // undocumented (absent from its types) but in both builds, and a test checks the header is gone.
  (uWS as unknown as { _cfg?: (key: string) => void })._cfg?.('silent');
  const ctx = contextOf(services, build);
  const router = buildRouter();
  const app = uWS.App();
  let inFlight = 0;
  const live = new LiveHub(ctx);
  live.attach(app);

  // A request with ambiguous framing is answered with end(…, close), but uWS still parses and
  // dispatches the requests already read behind it on the same socket (it is corked while parsing):
  // those come next, synchronously, from the same peer. They are held unanswered and closed once
  // the read is done and the 400 flushed (closing at once would drop the corked 400). uWS gives no
  // socket identity and drains microtasks between requests, so "same socket" is approximated by
  // "same address, this loop iteration": another connection from that address read in the same
  // iteration is closed unanswered too (rare; its client sees a closed connection and may retry).
  let poisoned: { peer: string; held: HttpResponse[] } | null = null;
  app.any('/*', (res, req) => {
    if (poisoned && poisoned.peer === Buffer.from(res.getRemoteAddressAsText()).toString()) {
      let aborted = false;
      res.onAborted(() => (aborted = true));
      poisoned.held.push(Object.assign(res, { closeIfOpen: () => aborted || res.close() }));
      return;
    }
    const started = performance.now();
    const head = readHead(req, res); // every header, before any await
    const ex = new Exchange(res, head, ctx.log);
    const match = router.match(head.method, head.path);
    const route = match.kind === 'none' ? 'unmatched' : match.name;
    inFlight++;
    const finish = () => {
      inFlight--;
      if (!ex.responded) ex.error(new ApiError('INTERNAL_ERROR'));
      const seconds = (performance.now() - started) / 1000;
      const status = String(ex.status);
      ctx.metrics.requests.inc({ route, method: head.method, status });
      ctx.metrics.latency.observe({ route, status }, seconds);
      publishHttpAnswered({ route, method: head.method, status: ex.status, ms: seconds * 1000 });
      // One access-log line per answer, whatever its status: the route template (never the raw
      // path, which may hold ids), the key's id (never the key). Logged through the service's
      // logger with the id as a field: a per-request child logger would be made for every answer.
      ctx.log.info(
        {
          request_id: ex.requestId,
          method: head.method,
          route,
          status: ex.status,
          ms: Math.round(seconds * 1e6) / 1e3,
          bytes_in: ex.bytesIn,
          bytes_out: ex.bytesOut,
          key_id: ex.keyId,
          aborted: ex.aborted,
        },
        'request',
      );
    };
    const fail = (e: unknown) => {
      // An unexpected failure after the client left (its work cancelled) is no error to log.
      if (ex.aborted && isUnexpected(e)) return;
      ex.error(apiErrorOf(e, ctx.metrics, ex.log, route));
    };
    try {
      if (head.framingError) {
        ex.closeAfter = true;
        const current = (poisoned = { peer: head.peer, held: [] });
        setImmediate(() => {
          poisoned = null;
          for (const held of current.held) (held as HttpResponse & { closeIfOpen(): void }).closeIfOpen();
        });
        throw new ApiError('MALFORMED_JSON', `The request's framing is ambiguous: ${head.framingError}`);
      }
      if (match.kind === 'none') throw new ApiError('NOT_FOUND', `No route ${head.method} ${head.path.slice(0, 200)}.`);
      if (match.kind === 'method') throw new ApiError('METHOD_NOT_ALLOWED', undefined, {}, { Allow: match.allow.join(', ') });
      if (ctx.draining() && route !== '/healthz') throw new ApiError('SERVER_BUSY', 'The server is shutting down.', {}, { 'Retry-After': '1' });
      const result = match.handler(ctx, ex, match.params);
      if (result instanceof Promise) {
        result.catch(fail).finally(finish);
        return;
      }
    } catch (e) {
      fail(e);
    }
    finish();
  });

  return new Promise((resolve, reject) => {
    app.listen(ctx.config.host, ctx.config.port, (socket) => {
      if (!socket) return reject(new Error(`cannot listen on ${ctx.config.host}:${ctx.config.port}`));
      resolve({
        port: uWS.us_socket_local_port(socket),
        inFlight: () => inFlight,
        stopListening: () => uWS.us_listen_socket_close(socket),
        closeLiveSockets: () => live.drain(),
      });
    });
  });
}
