import { type ErrorCode } from './errors.js';
import { errorResponses, EVERY_ANSWER, headerRefs, schemaRef as ref } from './openapi-responses.js';
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from './dataset-list-schemas.js';
import { livePath } from './openapi-live.js';

type Examples = { requests: Record<string, unknown>; responses: Record<string, unknown> };

const COMMON: ErrorCode[] = ['API_KEY_MISSING', 'API_KEY_INVALID', 'RATE_LIMIT_EXCEEDED', 'INTERNAL_ERROR'];
const CALCULATE: ErrorCode[] = [
  ...COMMON,
  'MALFORMED_JSON',
  'DATASET_NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_ERROR',
  'WEIGHTS_DO_NOT_SUM_TO_ONE',
  'UNKNOWN_SYMBOL',
  'MISSING_FX_RATE',
  'INSUFFICIENT_DATA',
  'SERVER_BUSY',
  'CALCULATION_TIMEOUT',
];
const UPLOAD: ErrorCode[] = [
  ...COMMON,
  'MALFORMED_MULTIPART',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'MISSING_FILE',
  'INVALID_CSV',
  'VALIDATION_ERROR',
  'STORAGE_QUOTA_EXCEEDED',
  'DATASET_QUOTA_EXCEEDED',
  'SERVER_BUSY',
];
const DATASET: ErrorCode[] = [...COMMON, 'DATASET_NOT_FOUND', 'SERVER_BUSY'];
/** Every route but /healthz answers 503 SERVER_BUSY while the service drains on shutdown. */
const DRAINING: ErrorCode[] = ['SERVER_BUSY'];

/** The first lines of examples/prices_wide_sample.csv, three of its symbols (a real file holds many more dates). */
const UPLOAD_EXAMPLE = ['date,AAPL,MSFT,JPM', '2015-01-12,100.3808,41.8355,51.2729', '2015-01-13,101.2720,41.6201,51.2817', ''].join('\n');

const METRICS_EXAMPLE = [
  '# HELP http_requests_total HTTP requests by route, method and status',
  '# TYPE http_requests_total counter',
  'http_requests_total{route="/api/v1/risk/calculate",method="POST",status="200"} 12',
  '',
].join('\n');

interface Operation {
  id: string;
  tag: 'datasets' | 'risk' | 'validation' | 'operations';
  summary: string;
  description: string;
  request?: { schema: string; example?: unknown; media?: string };
  ok: { description: string; schema: string | null; example?: unknown; media?: string };
  errors: ErrorCode[];
  limited?: boolean;
  open?: boolean;
  /** Security requirements of their own (an open operation has none). */
  security?: Record<string, string[]>[];
  parameters?: unknown[];
}

function operation(o: Operation, e: Examples): Record<string, unknown> {
  const media = o.ok.media ?? 'application/json';
  const okSchema = o.ok.schema === null ? { type: media === 'application/json' ? 'object' : 'string' } : ref(o.ok.schema);
  return {
    operationId: o.id,
    tags: [o.tag],
    summary: o.summary,
    description: o.description,
    ...(o.security ? { security: o.security } : o.open ? { security: [] } : {}),
    ...(o.parameters ? { parameters: o.parameters } : {}),
    ...(o.request
      ? {
          requestBody: {
            required: true,
            content: {
              [o.request.media ?? 'application/json']: { schema: ref(o.request.schema), ...(o.request.example ? { example: o.request.example } : {}) },
            },
          },
        }
      : {}),
    responses: {
      '200': {
        description: o.ok.description,
        headers: headerRefs(o.limited ? [...EVERY_ANSWER, 'RateLimit', 'RateLimit-Policy'] : EVERY_ANSWER),
        content: { [media]: { schema: okSchema, ...(o.ok.example ? { example: o.ok.example } : {}) } },
      },
      ...errorResponses(o.errors, e.responses.error),
    },
  };
}

const LIST_PARAMETERS = [
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Datasets per page, 1 to ${LIST_MAX_LIMIT} (default ${LIST_DEFAULT_LIMIT}).`,
    schema: { type: 'integer', minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT },
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'A page’s next_cursor, unchanged: the page after it.',
    schema: { type: 'string', maxLength: 200 },
  },
];

const DATASET_ID = { name: 'id', in: 'path', required: true, description: 'The dataset’s id (ds_…).', schema: { type: 'string', maxLength: 64 } };

/** Every path of the service: summary, description, tag, examples, responses and their headers. */
export function paths(e: Examples): Record<string, unknown> {
  const q = e.requests;
  const r = e.responses;
  const op = (o: Operation) => operation(o, e);
  return {
    '/api/v1/risk/datasets': {
      get: op({
        id: 'listDatasets',
        tag: 'datasets',
        summary: 'List the caller’s datasets',
        description:
          'The datasets of the caller’s owner (every key of the owner sees them), newest first, a page at a time: follow `next_cursor` until it is null. A bad `limit` or `cursor`, or another query parameter, is 422 VALIDATION_ERROR at `["query", name]`.',
        parameters: LIST_PARAMETERS,
        ok: { description: 'A page of datasets.', schema: 'DatasetListResponse', example: r.list },
        errors: [...COMMON, 'VALIDATION_ERROR', 'SERVER_BUSY'],
      }),
    },
    '/api/v1/risk/datasets/upload': {
      post: op({
        id: 'uploadDataset',
        tag: 'datasets',
        summary: 'Upload daily prices as CSV',
        description:
          'A multipart form with one file part named `file`: wide (a date column, then one column per symbol) or long (date, symbol, price). Answers the new dataset’s id, what it holds and a data-quality report (informational: a finding never rejects an upload). Own rate limit: RATE_LIMIT_UPLOAD_PER_MIN.',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description:
              'Makes a retried upload safe: within 24 hours the same key with the same file answers the dataset stored the first time (no second one is stored), and the same key with a different file is 422 VALIDATION_ERROR at ["header", "idempotency-key"]. Keys are per owner; 1 to 255 printable ASCII characters.',
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\x20-\x7E]+$' },
          },
        ],
        request: { schema: 'UploadForm', media: 'multipart/form-data', example: { file: UPLOAD_EXAMPLE } },
        ok: { description: 'Stored: the dataset’s id and summary.', schema: 'UploadResponse', example: r.upload },
        errors: UPLOAD,
        limited: true,
      }),
    },
    '/api/v1/risk/calculate': {
      post: op({
        id: 'calculateRisk',
        tag: 'risk',
        summary: 'VaR, ES and contributions of one book',
        description:
          'One book, as long-only weights of `portfolio_value` or long/short `positions`, optionally with `what_if` trades priced on the same scenarios. Monte Carlo methods need `simulations`; a `seed` makes the answer reproducible bit for bit.',
        request: { schema: 'CalculateRequest', example: q.calculate },
        ok: { description: 'The book’s risk figures.', schema: 'CalculateResponse', example: r.calculate },
        errors: CALCULATE,
        limited: true,
      }),
    },
    '/api/v1/risk/calculate/batch': {
      post: op({
        id: 'calculateBatch',
        tag: 'risk',
        summary: 'Up to 200 books on one scenario set',
        description:
          'Every book is priced on the same scenarios, drawn over the union of the books’ symbols in order of first appearance; each book’s figures equal a single calculation’s over that union. Own rate limit: RATE_LIMIT_BATCH_PER_MIN.',
        request: { schema: 'BatchRequest', example: q.batch },
        ok: { description: 'Each book’s figures.', schema: 'BatchResponse', example: r.batch },
        errors: CALCULATE,
        limited: true,
      }),
    },
    '/api/v1/risk/backtest': {
      post: op({
        id: 'backtestModel',
        tag: 'validation',
        summary: 'Backtest the model’s 1-day VaR and ES',
        description:
          'Rolling 1-day VaR/ES forecasts of the model over the last `window` dates, each estimated on the `estimation_window` returns before it, against the realised P&L: exceptions, Kupiec, Christoffersen, the Basel traffic light and the Acerbi–Székely ES test. Own rate limit: RATE_LIMIT_BACKTEST_PER_MIN.',
        request: { schema: 'BacktestRequest', example: q.backtest },
        ok: { description: 'The backtest.', schema: 'BacktestResponse', example: r.backtest },
        errors: CALCULATE,
        limited: true,
      }),
    },
    '/api/v1/risk/stress': {
      post: op({
        id: 'stressBook',
        tag: 'validation',
        summary: 'Stress scenarios of one book',
        description:
          'Historical-worst windows, dated and named crisis windows, instantaneous shocks and conditional scenarios (unshocked symbols at their conditional mean under the fitted normal model), each itemised by position. Own rate limit: RATE_LIMIT_STRESS_PER_MIN.',
        request: { schema: 'StressRequest', example: q.stress },
        ok: { description: 'Each scenario’s P&L, itemised.', schema: 'StressResponse', example: r.stress },
        errors: CALCULATE,
        limited: true,
      }),
    },
    '/api/v1/risk/datasets/{id}': {
      get: op({
        id: 'getDataset',
        tag: 'datasets',
        summary: 'Read a dataset’s summary',
        description: 'The summary and quality report of one of the caller’s datasets; another owner’s dataset answers 404 like a missing one.',
        parameters: [DATASET_ID],
        ok: { description: 'The dataset.', schema: 'DatasetResponse', example: r.dataset },
        errors: DATASET,
      }),
      delete: op({
        id: 'deleteDataset',
        tag: 'datasets',
        summary: 'Delete a dataset',
        description: 'Deletes one of the caller’s datasets; its id answers 404 DATASET_NOT_FOUND from then on.',
        parameters: [DATASET_ID],
        ok: { description: 'Deleted.', schema: 'DeletedResponse', example: r.deleted },
        errors: DATASET,
      }),
    },
    '/healthz': {
      get: op({
        id: 'health',
        tag: 'operations',
        summary: 'Liveness',
        description: 'Answers while the process serves HTTP.',
        ok: { description: 'Alive.', schema: 'Health', example: { status: 'ok' } },
        errors: [],
        open: true,
      }),
    },
    '/readyz': {
      get: op({
        id: 'ready',
        tag: 'operations',
        summary: 'Readiness',
        description: 'Ready when the engine workers are up, the dataset store is writable and the service is not draining; else 503 SERVER_BUSY.',
        ok: { description: 'Ready.', schema: 'Ready', example: { status: 'ready', engine: 'native-x86-64', store_writable: true } },
        errors: ['SERVER_BUSY'],
        open: true,
      }),
    },
    '/metrics': {
      get: op({
        id: 'metrics',
        tag: 'operations',
        summary: 'Prometheus metrics',
        description:
          'Requests, latency, engine and pool figures in the Prometheus text format; labels never carry keys or ids. With METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>` (else 401 METRICS_TOKEN_INVALID); without it, only a loopback listener serves it (else 404 NOT_FOUND). Never expose it publicly.',
        ok: { description: 'Prometheus text format.', schema: null, media: 'text/plain', example: METRICS_EXAMPLE },
        errors: [...DRAINING, 'METRICS_TOKEN_INVALID', 'NOT_FOUND'],
        security: [{}, { MetricsToken: [] }],
      }),
    },
    '/api/v1/risk/live': livePath(),
    '/api/v1/openapi.json': {
      get: op({
        id: 'openapi',
        tag: 'operations',
        summary: 'This document',
        description: 'The OpenAPI 3.1 document of the service, built from the schemas that validate its requests.',
        ok: {
          description: 'This document.',
          schema: null,
          example: { openapi: '3.1.0', info: { title: 'Portfolio Risk Service', version: '0.2.0' }, paths: {} },
        },
        errors: DRAINING,
        open: true,
      }),
    },
  };
}
