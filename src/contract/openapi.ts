import { type TSchema } from '@sinclair/typebox';
import { ERRORS } from './errors.js';
import { BatchResponse, CalculateResponse, DatasetResponse, DeletedResponse, ErrorBody, Health, UploadForm, UploadResponse } from './responses.js';
import { StressRequest, StressResponse } from './stress-schemas.js';
import { BacktestResponse } from './backtest-schemas.js';

/** Plain JSON Schema of a TypeBox schema (TypeBox keeps its metadata under symbols). */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema));
}

const errorResponse = (codes: (keyof typeof ERRORS)[]) => ({
  description: codes.join(', '),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function errorResponses(codes: (keyof typeof ERRORS)[]): Record<string, unknown> {
  const byStatus = new Map<number, (keyof typeof ERRORS)[]>();
  for (const c of codes) byStatus.set(ERRORS[c][0], [...(byStatus.get(ERRORS[c][0]) ?? []), c]);
  return Object.fromEntries([...byStatus].map(([status, list]) => [String(status), errorResponse(list)]));
}

const json = (ref: string) => ({ content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } } });
const common: (keyof typeof ERRORS)[] = ['API_KEY_MISSING', 'API_KEY_INVALID', 'RATE_LIMIT_EXCEEDED', 'INTERNAL_ERROR'];
const calculateErrors: (keyof typeof ERRORS)[] = [
  ...common,
  'MALFORMED_JSON',
  'DATASET_NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_ERROR',
  'WEIGHTS_DO_NOT_SUM_TO_ONE',
  'UNKNOWN_SYMBOL',
  'INSUFFICIENT_DATA',
  'SERVER_BUSY',
  'CALCULATION_TIMEOUT',
];

/** OpenAPI 3.1 of the service, from the same schemas that validate requests. */
export function buildOpenApi(requests: { calculate: TSchema; batch: TSchema; backtest: TSchema }, version: string): string {
  const doc = {
    openapi: '3.1.0',
    info: { title: 'Portfolio Risk Service', version, description: 'VaR and ES by Monte Carlo, historical simulation and closed form.' },
    servers: [{ url: '/' }],
    security: [{ ApiKey: [] }],
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: {
        CalculateRequest: plain(requests.calculate),
        CalculateResponse: plain(CalculateResponse),
        BatchRequest: plain(requests.batch),
        BatchResponse: plain(BatchResponse),
        StressRequest: plain(StressRequest),
        BacktestRequest: plain(requests.backtest),
        BacktestResponse: plain(BacktestResponse),
        StressResponse: plain(StressResponse),
        UploadResponse: plain(UploadResponse),
        DatasetResponse: plain(DatasetResponse),
        DeletedResponse: plain(DeletedResponse),
        Error: plain(ErrorBody),
        Health: plain(Health),
      },
    },
    paths: {
      '/api/v1/risk/datasets/upload': {
        post: {
          operationId: 'uploadDataset',
          requestBody: { required: true, content: { 'multipart/form-data': { schema: plain(UploadForm) } } },
          responses: {
            '200': { description: 'Stored', ...json('UploadResponse') },
            ...errorResponses([
              ...common,
              'MALFORMED_MULTIPART',
              'PAYLOAD_TOO_LARGE',
              'UNSUPPORTED_MEDIA_TYPE',
              'MISSING_FILE',
              'INVALID_CSV',
              'VALIDATION_ERROR',
              'SERVER_BUSY',
            ]),
          },
        },
      },
      '/api/v1/risk/calculate': {
        post: {
          operationId: 'calculateRisk',
          summary: 'VaR, ES and contributions of one book (weights or long/short positions), with an optional what-if.',
          requestBody: { required: true, ...json('CalculateRequest') },
          responses: { '200': { description: 'Risk figures', ...json('CalculateResponse') }, ...errorResponses(calculateErrors) },
        },
      },
      '/api/v1/risk/calculate/batch': {
        post: {
          operationId: 'calculateBatch',
          summary: 'Up to 200 books priced on one scenario set over the union of their symbols (own rate limit: RATE_LIMIT_BATCH_PER_MIN).',
          requestBody: { required: true, ...json('BatchRequest') },
          responses: { '200': { description: 'Each book’s figures', ...json('BatchResponse') }, ...errorResponses(calculateErrors) },
        },
      },
      '/api/v1/risk/backtest': {
        post: {
          operationId: 'backtestModel',
          summary:
            'Rolling 1-day VaR/ES forecasts of the model over the last `window` dates against the realised P&L: Kupiec, Christoffersen, traffic light, Acerbi–Székely (own rate limit: RATE_LIMIT_BACKTEST_PER_MIN).',
          requestBody: { required: true, ...json('BacktestRequest') },
          responses: { '200': { description: 'The backtest', ...json('BacktestResponse') }, ...errorResponses(calculateErrors) },
        },
      },
      '/api/v1/risk/stress': {
        post: {
          operationId: 'stressBook',
          summary:
            'Historical-worst, dated, named-crisis, instantaneous and conditional stress scenarios of one book (own rate limit: RATE_LIMIT_STRESS_PER_MIN).',
          requestBody: { required: true, ...json('StressRequest') },
          responses: { '200': { description: 'Each scenario’s P&L, itemised', ...json('StressResponse') }, ...errorResponses(calculateErrors) },
        },
      },
      '/api/v1/risk/datasets/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          operationId: 'getDataset',
          responses: { '200': { description: 'The dataset', ...json('DatasetResponse') }, ...errorResponses([...common, 'DATASET_NOT_FOUND', 'SERVER_BUSY']) },
        },
        delete: {
          operationId: 'deleteDataset',
          responses: { '200': { description: 'Deleted', ...json('DeletedResponse') }, ...errorResponses([...common, 'DATASET_NOT_FOUND', 'SERVER_BUSY']) },
        },
      },
      '/healthz': { get: { operationId: 'health', security: [], responses: { '200': { description: 'Alive', ...json('Health') } } } },
      '/readyz': {
        get: { operationId: 'ready', security: [], responses: { '200': { description: 'Ready', ...json('Health') }, ...errorResponses(['SERVER_BUSY']) } },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          security: [],
          responses: { '200': { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
      '/api/v1/openapi.json': {
        get: {
          operationId: 'openapi',
          security: [],
          responses: { '200': { description: 'This document', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
  };
  return JSON.stringify(doc);
}
