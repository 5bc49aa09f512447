import { ERRORS, type ErrorCode } from './errors.js';

/**
 * Response headers, declared once and referenced by every response that carries them. `required`
 * means the header is on every response that references it: the HTTP tests check it is.
 */
export const HEADERS = {
  'X-Request-Id': {
    description: 'Id of the request: the one sent in X-Request-Id when it is 1–128 characters of [A-Za-z0-9._:-], else a new one.',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 128, examples: ['req_4fX9kQ2mB7tR1vW8yZ3a'] },
  },
  RateLimit: {
    description: 'The key’s bucket for this endpoint: r = requests left, t = seconds until it is full again.',
    required: true,
    schema: { type: 'string', examples: ['"calculate";r=59;t=1'] },
  },
  'RateLimit-Policy': {
    description: 'The bucket’s policy: q = requests per window, w = window in seconds.',
    required: true,
    schema: { type: 'string', examples: ['"calculate";q=60;w=60'] },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 0, examples: [1] } },
  'Cache-Control': {
    description: 'Always no-store: no cache may keep the answer (the key travels in X-API-Key, not Authorization, which shared caches would respect).',
    required: true,
    schema: { type: 'string', examples: ['no-store'] },
  },
  'X-Content-Type-Options': {
    description: 'Always nosniff: the body is what Content-Type says.',
    required: true,
    schema: { type: 'string', examples: ['nosniff'] },
  },
  Allow: {
    description: 'The methods the path answers, comma-separated.',
    required: true,
    schema: { type: 'string', examples: ['GET, DELETE'] },
  },
  Upgrade: {
    description: 'The protocol the route speaks: websocket.',
    required: true,
    schema: { type: 'string', enum: ['websocket'] },
  },
};

export type HeaderName = keyof typeof HEADERS;

/** Headers on every answer, success or error. */
export const EVERY_ANSWER: HeaderName[] = ['X-Request-Id', 'Cache-Control', 'X-Content-Type-Options'];

export const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((h) => [h, { $ref: `#/components/headers/${h}` }]));
export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** What every error body of `code` looks like, as the service answers it (the request id is an example). */
const errorExample = (code: ErrorCode) => ({ detail: { code, message: ERRORS[code][1], request_id: 'req_4fX9kQ2mB7tR1vW8yZ3a' } });

/** A declared header, inline and not required: on most of a response's answers, not all. */
const sometimes = (name: HeaderName, when: string) => ({ ...HEADERS[name], description: `${HEADERS[name].description} ${when}`, required: false });

/** A 429 refusing an address for its failed authentications knows no key, so no bucket to report. */
const BUCKET_ON_429 = 'Absent when the address is refused for repeated failed authentications.';

/** Headers a status carries beyond X-Request-Id, whatever the operation. */
const STATUS_HEADERS: Record<number, Record<string, unknown>> = {
  405: headerRefs(['Allow']),
  426: headerRefs(['Upgrade']),
  429: { ...headerRefs(['Retry-After']), RateLimit: sometimes('RateLimit', BUCKET_ON_429), 'RateLimit-Policy': sometimes('RateLimit-Policy', BUCKET_ON_429) },
  503: headerRefs(['Retry-After']),
};

/**
 * Error responses by status, each listing its codes, with the headers that status carries and an
 * example: `validation` for 422 (a real VALIDATION_ERROR answer), else the status's first code.
 */
export function errorResponses(codes: ErrorCode[], validation: unknown): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(ERRORS[c][0], [...(byStatus.get(ERRORS[c][0]) ?? []), c]);
  return Object.fromEntries([...byStatus].map(([status, list]) => [String(status), errorResponse(status, list, status === 422 ? validation : undefined)]));
}

function errorResponse(status: number, codes: ErrorCode[], example?: unknown) {
  return {
    description: codes.map((c) => `${c}: ${ERRORS[c][1]}`).join(' '),
    headers: { ...headerRefs(EVERY_ANSWER), ...STATUS_HEADERS[status] },
    content: { 'application/json': { schema: schemaRef('Error'), example: example ?? errorExample(codes[0]!) } },
  };
}

/**
 * Answers no operation declares, since they come from no operation: an unknown path (404) and a
 * method the path does not answer (405, with Allow). Reusable under components.responses.
 */
export const ROUTING_RESPONSES = {
  NotFound: errorResponse(404, ['NOT_FOUND']),
  MethodNotAllowed: errorResponse(405, ['METHOD_NOT_ALLOWED']),
};
