import { type TSchema } from '@sinclair/typebox';
import { BatchResponse, CalculateResponse } from './responses.js';
import { ErrorBody, Health, Ready, UploadForm } from './service-schemas.js';
import { DatasetResponse, DeletedResponse, UploadResponse } from './dataset-schemas.js';
import { DatasetListResponse } from './dataset-list-schemas.js';
import { StressRequest, StressResponse } from './stress-schemas.js';
import { BacktestResponse, backtestRequestSchema } from './backtest-schemas.js';
import { batchRequestSchema, calculateRequestSchema } from './schemas.js';
import { LIVE_COMPONENTS } from './openapi-live.js';
import { paths } from './openapi-paths.js';
import { HEADERS, ROUTING_RESPONSES } from './openapi-responses.js';
import examples from './examples.json' with { type: 'json' };

/**
 * Plain JSON Schema of a TypeBox schema, in the forms client generators read: a union of string
 * literals (TypeBox's `anyOf: [{const}]`) and a lone literal become `enum`.
 */
export function openApiSchema(schema: TSchema): unknown {
  return rewrite(JSON.parse(JSON.stringify(schema)));
}

function rewrite(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewrite);
  if (node === null || typeof node !== 'object') return node;
  const { anyOf, const: only, ...rest } = node as Record<string, unknown>;
  if (Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every((m) => typeof (m as { const?: unknown }).const === 'string')) {
    return { ...mapValues(rest), type: 'string', enum: anyOf.map((m) => (m as { const: string }).const) };
  }
  if (typeof only === 'string') return { ...mapValues(rest), type: 'string', enum: [only] };
  const out = mapValues(rest);
  if (anyOf !== undefined) out.anyOf = rewrite(anyOf);
  if (only !== undefined) out.const = only;
  return out;
}

const mapValues = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, rewrite(v)]));

const TAGS = [
  { name: 'datasets', description: 'Upload daily prices as CSV, read, list and delete datasets.' },
  { name: 'risk', description: 'VaR, ES, contributions and the P&L distribution of books, one or many at once.' },
  { name: 'validation', description: 'Backtests of the model and stress scenarios of a book.' },
  { name: 'operations', description: 'Health, readiness, metrics and this document (no API key; /metrics may need METRICS_TOKEN).' },
];

const DESCRIPTION = [
  'Value-at-Risk and Expected Shortfall of portfolios and long/short books by Monte Carlo (normal, Student-t), historical simulation or the closed form, with Euler contributions, what-if trades, batches, backtests and stress scenarios.',
  '',
  'Every request but the operations ones carries an API key in `X-API-Key`. Every response carries `X-Request-Id` (yours, when you send a sane one, else a new one); error bodies repeat it as `detail.request_id`. Errors share one shape, `{"detail": {"code", "message", …}}`; a wrong method on a known path answers 405 `METHOD_NOT_ALLOWED` with an `Allow` header, an unknown path 404 `NOT_FOUND` (components.responses MethodNotAllowed and NotFound).',
  '',
  'Limited endpoints answer `RateLimit` and `RateLimit-Policy` headers (per key and endpoint, per minute); a 429 adds `Retry-After`. A seeded request gives bit-identical figures on every build and machine.',
].join('\n');

/** OpenAPI 3.1 of the service, from the same schemas that validate requests. */
export function buildOpenApi(requests: { calculate: TSchema; batch: TSchema; backtest: TSchema }, version: string): string {
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'Portfolio Risk Service',
      version,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This service.' }],
    security: [{ ApiKey: [] }],
    tags: TAGS,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key: prk_live_ followed by 32 characters.' },
        MetricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for GET /metrics only.' },
      },
      headers: HEADERS,
      responses: ROUTING_RESPONSES,
      schemas: {
        CalculateRequest: openApiSchema(requests.calculate),
        CalculateResponse: openApiSchema(CalculateResponse),
        BatchRequest: openApiSchema(requests.batch),
        BatchResponse: openApiSchema(BatchResponse),
        StressRequest: openApiSchema(StressRequest),
        BacktestRequest: openApiSchema(requests.backtest),
        BacktestResponse: openApiSchema(BacktestResponse),
        StressResponse: openApiSchema(StressResponse),
        UploadForm: openApiSchema(UploadForm),
        UploadResponse: openApiSchema(UploadResponse),
        DatasetResponse: openApiSchema(DatasetResponse),
        DeletedResponse: openApiSchema(DeletedResponse),
        DatasetListResponse: openApiSchema(DatasetListResponse),
        Error: openApiSchema(ErrorBody),
        Health: openApiSchema(Health),
        ...Object.fromEntries(Object.entries(LIVE_COMPONENTS).map(([name, schema]) => [name, openApiSchema(schema)])),
        Ready: openApiSchema(Ready),
      },
    },
    paths: paths(examples),
  };
  return JSON.stringify(doc);
}

/** The document a service with this MAX_SIMULATIONS and engine version serves. */
export function serviceOpenApi(maxSimulations: number, version: string): string {
  return buildOpenApi(
    { calculate: calculateRequestSchema(maxSimulations), batch: batchRequestSchema(maxSimulations), backtest: backtestRequestSchema(maxSimulations) },
    version,
  );
}
