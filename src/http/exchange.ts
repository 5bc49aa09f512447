import { type HttpRequest, type HttpResponse } from 'uWebSockets.js';
import { ApiError } from './errors.js';

/** Everything read from the request before the first await (uWS invalidates `req` after it). */
export interface RequestHead {
  method: string;
  path: string;
  apiKeys: string[];
  contentType: string;
  contentLength: number | null;
  contentEncoding: string;
  transferEncoding: string;
  ip: string;
}

export function readHead(req: HttpRequest, res: HttpResponse): RequestHead {
  const apiKeys: string[] = [];
  req.forEach((k, v) => {
    if (k === 'x-api-key') apiKeys.push(v);
  });
  const cl = req.getHeader('content-length');
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    apiKeys,
    contentType: req.getHeader('content-type'),
    contentLength: cl === '' ? null : Number(cl),
    contentEncoding: req.getHeader('content-encoding'),
    transferEncoding: req.getHeader('transfer-encoding'),
    ip: Buffer.from(res.getRemoteAddressAsText()).toString(),
  };
}

/**
 * One HTTP exchange: registers onAborted at once, writes exactly one response (corked, so it is
 * safe after an await), and drops the write if the client is gone.
 */
export class Exchange {
  aborted = false;
  responded = false;
  status = 0;
  private readonly abortHandlers: (() => void)[] = [];

  constructor(
    readonly res: HttpResponse,
    readonly head: RequestHead,
  ) {
    res.onAborted(() => {
      this.aborted = true;
      for (const h of this.abortHandlers) h();
    });
  }

  onAbort(handler: () => void): void {
    if (this.aborted) handler();
    else this.abortHandlers.push(handler);
  }

  send(status: number, body: string, headers: Record<string, string> = {}, contentType = 'application/json'): void {
    if (this.responded) return;
    this.responded = true;
    this.status = status;
    if (this.aborted) return;
    this.res.cork(() => {
      this.res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`.trim());
      this.res.writeHeader('Content-Type', contentType);
      for (const [k, v] of Object.entries(headers)) this.res.writeHeader(k, v);
      this.res.end(body);
    });
  }

  json(status: number, value: unknown, headers: Record<string, string> = {}): void {
    this.send(status, JSON.stringify(value), headers);
  }

  error(e: ApiError, headers: Record<string, string> = {}): void {
    this.json(e.status, e.body(), { ...headers, ...e.headers });
  }
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Reads the whole body up to `limit` bytes, copying every chunk (uWS reuses its buffers). */
export function readBody(ex: Exchange, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    ex.onAbort(() => {
      if (!done) reject(new Error('client aborted'));
      done = true;
    });
    ex.res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > limit) {
        done = true;
        reject(new ApiError('PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`));
        return;
      }
      chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
      if (isLast) {
        done = true;
        resolve(Buffer.concat(chunks, size));
      }
    });
  });
}
