import { type HttpRequest, type HttpResponse } from 'uWebSockets.js';
import { type Logger } from 'pino';
import { ApiError, type HttpStatus } from '../contract/errors.js';
import { requestIdOf } from '../ids.js';

/** Everything read from the request before the first await (uWS invalidates `req` after it). */
export interface RequestHead {
  method: string;
  path: string;
  /** The query string, without '?'. */
  query: string;
  apiKeys: string[];
  /** Authorization as sent (only GET /metrics reads it: its bearer token). */
  authorization: string;
  contentType: string;
  contentLength: number | null;
  contentEncoding: string;
  transferEncoding: string;
  /** Why the body's length is ambiguous (request smuggling, review M2); null when it is not. */
  framingError: string | null;
  /** The TCP peer's address, and every X-Forwarded-For header joined with ',' (trusted per peer). */
  peer: string;
  forwardedFor: string;
  /** Every Idempotency-Key as sent (none when absent; checked by the route that honours it, which refuses a repeat). */
  idempotencyKeys: string[];
  /** X-Request-Id as sent (checked before use), and the W3C traceparent. */
  requestId: string;
  traceparent: string;
}

export function readHead(req: HttpRequest, res: HttpResponse): RequestHead {
  const apiKeys: string[] = [];
  const idempotencyKeys: string[] = [];
  let contentLengths = 0;
  const transferEncodings: string[] = [];
  const forwardedFor: string[] = [];
  // getHeader sees only the first of repeated headers: repeats are counted here.
  req.forEach((k, v) => {
    if (k === 'x-api-key') apiKeys.push(v);
    else if (k === 'idempotency-key') idempotencyKeys.push(v);
    else if (k === 'content-length') contentLengths++;
    else if (k === 'transfer-encoding') transferEncodings.push(v);
    else if (k === 'x-forwarded-for') forwardedFor.push(v);
  });
  const cl = req.getHeader('content-length');
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    apiKeys,
    authorization: req.getHeader('authorization'),
    contentType: req.getHeader('content-type'),
    contentLength: cl === '' ? null : Number(cl),
    contentEncoding: req.getHeader('content-encoding'),
    transferEncoding: req.getHeader('transfer-encoding'),
    framingError: framingErrorOf(contentLengths, transferEncodings),
    peer: Buffer.from(res.getRemoteAddressAsText()).toString(),
    forwardedFor: forwardedFor.join(','),
    idempotencyKeys,
    requestId: req.getHeader('x-request-id'),
    traceparent: req.getHeader('traceparent'),
  };
}

/**
 * A front proxy may frame the body otherwise than uWS (which takes the first Content-Length and
 * accepts any Transfer-Encoding), so the bytes after it could be read as a second, smuggled request.
 */
function framingErrorOf(contentLengths: number, transferEncodings: string[]): string | null {
  if (contentLengths > 1) return 'More than one Content-Length header.';
  if (transferEncodings.length > 1 || (transferEncodings.length === 1 && transferEncodings[0]!.trim() !== 'chunked')) {
    return 'Transfer-Encoding must be exactly "chunked".';
  }
  return null;
}

/**
 * Headers on every answer: no cache may store it (X-API-Key is not Authorization, so RFC 9111 would
 * let a shared cache keep it), and no browser may guess its type (review L2). Pages override
 * Cache-Control with their own.
 */
const EVERY_ANSWER = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

export type BodyListener = (chunk: Buffer, isLast: boolean) => void;

/** The status logged and counted for a request whose client left before its answer (nginx's 499). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Body bytes held while no listener is attached before the socket is paused. */
const BUFFER_BEFORE_PAUSE = 256 * 1024;

/**
 * One HTTP exchange: registers onAborted and onData at once, writes exactly one response (corked,
 * so it is safe after an await), and drops the write if the client is gone.
 *
 * uWS delivers body chunks only to a handler attached before the request handler returns, but the
 * body's reader starts after awaits (authentication, the shared rate limiter): chunks arriving
 * before then are copied and held (the socket paused beyond BUFFER_BEFORE_PAUSE), then replayed.
 */
export class Exchange {
  aborted = false;
  responded = false;
  status = 0;
  /** Bytes of the request body received, and of the answer's body. */
  bytesIn = 0;
  bytesOut = 0;
  /** Id of the API key that was admitted, for the access log (never the key itself). */
  keyId: string | null = null;
  /** Echoed as X-Request-Id, logged, and put into every error body. */
  readonly requestId: string;
  private requestLog: Logger | null = null;
  private readonly abortHandlers: (() => void)[] = [];
  private abortController: AbortController | null = null;
  private bodyListener: BodyListener | null = null;
  private heldBody: { chunk: Buffer; isLast: boolean }[] = [];
  private heldBytes = 0;
  private paused = false;
  /** Headers every response of this exchange carries, errors included (e.g. RateLimit). */
  private readonly baseHeaders: Record<string, string> = { ...EVERY_ANSWER };
  /** Close the connection after the answer: what follows the request on it cannot be trusted. */
  closeAfter = false;

  constructor(
    readonly res: HttpResponse,
    readonly head: RequestHead,
    private readonly serviceLog: Logger,
  ) {
    this.requestId = requestIdOf(head.requestId, head.traceparent);
    this.baseHeaders['X-Request-Id'] = this.requestId;
    res.onAborted(() => {
      this.aborted = true;
      for (const h of this.abortHandlers) h();
    });
    res.onData((chunk, isLast) => {
      this.bytesIn += chunk.byteLength;
      // Answered already (e.g. 401 before the body was read): the rest is drained and dropped, and
      // `res` must not be touched again.
      if (this.responded && !this.bodyListener) return;
      const copy = Buffer.from(new Uint8Array(chunk).slice()); // uWS reuses its buffer
      if (this.bodyListener) return this.bodyListener(copy, isLast);
      this.heldBody.push({ chunk: copy, isLast });
      this.heldBytes += copy.byteLength;
      if (this.heldBytes > BUFFER_BEFORE_PAUSE && !isLast && !this.paused) {
        this.paused = true;
        res.pause();
      }
    });
  }

  /** Delivers the request body: chunks held so far, then the rest as it arrives. */
  onBody(listener: BodyListener): void {
    this.bodyListener = listener;
    const held = this.heldBody;
    this.heldBody = [];
    this.heldBytes = 0;
    for (const { chunk, isLast } of held) listener(chunk, isLast);
    if (this.paused) {
      this.paused = false;
      if (!this.aborted && !this.responded) this.res.resume();
    }
  }

  /** Adds headers to whatever this exchange answers; a response's own headers take precedence. */
  addHeaders(headers: Record<string, string>): void {
    Object.assign(this.baseHeaders, headers);
  }

  /** The service's logger with this request's id on every line. */
  get log(): Logger {
    this.requestLog ??= this.serviceLog.child({ request_id: this.requestId });
    return this.requestLog;
  }

  onAbort(handler: () => void): void {
    if (this.aborted) handler();
    else this.abortHandlers.push(handler);
  }

  /** Aborted when the client goes away: what the work done for this request listens to. */
  get abortSignal(): AbortSignal {
    if (!this.abortController) {
      const controller = new AbortController();
      this.abortController = controller;
      this.onAbort(() => controller.abort());
    }
    return this.abortController.signal;
  }

  send(status: HttpStatus, body: string | Buffer, headers: Record<string, string> = {}, contentType = 'application/json'): void {
    if (this.responded) return;
    this.responded = true;
    if (this.aborted) {
      // Nothing can be written: the log and the metrics say the client left, not what it missed.
      this.status = CLIENT_CLOSED_REQUEST;
      return;
    }
    this.status = status;
    this.bytesOut = Buffer.byteLength(body);
    this.res.cork(() => {
      if (this.paused) {
        // Answered before the body was read: let the rest of it arrive, to be dropped.
        this.paused = false;
        this.res.resume();
      }
      this.res.writeStatus(`${status} ${STATUS_TEXT[status]}`);
      this.res.writeHeader('Content-Type', contentType);
      for (const [k, v] of Object.entries({ ...this.baseHeaders, ...headers })) this.res.writeHeader(k, v);
      this.res.end(body, this.closeAfter);
    });
  }

  json(status: HttpStatus, value: unknown, headers: Record<string, string> = {}): void {
    this.send(status, JSON.stringify(value), headers);
  }

  error(e: ApiError, headers: Record<string, string> = {}): void {
    const { detail } = e.body();
    this.json(e.status, { detail: { ...detail, request_id: this.requestId } }, { ...headers, ...e.headers });
  }
}

/** Every status's reason phrase: the status line needs one (or at least the space before it), and
 * a status added to the error table without one here does not compile. */
const STATUS_TEXT: Record<HttpStatus, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};
