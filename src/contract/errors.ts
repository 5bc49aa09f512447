/** The one table of error codes: each code's HTTP status and default message. */
export const ERRORS = {
  MALFORMED_JSON: [400, 'The request body is not valid JSON.'],
  MALFORMED_MULTIPART: [400, 'The request body is not valid multipart/form-data.'],
  API_KEY_MISSING: [401, 'An API key is required in the X-API-Key header.'],
  API_KEY_INVALID: [401, 'The API key is not valid.'],
  METRICS_TOKEN_INVALID: [401, 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.'],
  NOT_FOUND: [404, 'No such route.'],
  DATASET_NOT_FOUND: [404, 'No dataset with this id.'],
  METHOD_NOT_ALLOWED: [405, 'This method is not allowed on this route.'],
  UPGRADE_REQUIRED: [426, 'This route speaks WebSocket: send GET with Upgrade: websocket.'],
  PAYLOAD_TOO_LARGE: [413, 'The request body is too large.'],
  STORAGE_QUOTA_EXCEEDED: [413, "The dataset does not fit in the owner's remaining storage quota."],
  UNSUPPORTED_MEDIA_TYPE: [415, 'Unsupported Content-Type or Content-Encoding.'],
  VALIDATION_ERROR: [422, 'The request is not valid.'],
  WEIGHTS_DO_NOT_SUM_TO_ONE: [422, 'Portfolio weights must sum to 1.'],
  UNKNOWN_SYMBOL: [422, 'Some portfolio symbols are not in the dataset.'],
  INSUFFICIENT_DATA: [422, 'Not enough price history for this calculation.'],
  MISSING_FILE: [422, 'The upload needs one file part named "file".'],
  INVALID_CSV: [422, 'The file is not a valid price CSV.'],
  MISSING_FX_RATE: [422, 'No FX rate in the dataset converts a position’s currency into the reporting currency.'],
  RATE_LIMIT_EXCEEDED: [429, 'Too many requests. Please try again later.'],
  INTERNAL_ERROR: [500, 'Internal error.'],
  SERVER_BUSY: [503, 'The server is busy. Please retry later.'],
  CALCULATION_TIMEOUT: [503, 'The calculation did not finish in time.'],
  DATASET_QUOTA_EXCEEDED: [507, 'The owner has as many datasets as its quota allows.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERRORS;

/** The statuses the service answers with: 200 and every error's. */
export type HttpStatus = 200 | (typeof ERRORS)[ErrorCode][0];

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An error a handler raises; the HTTP layer renders it as {"detail": {...}}. */
export class ApiError extends Error {
  readonly status: HttpStatus;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? ERRORS[code][1]);
    this.status = ERRORS[code][0];
  }

  body(): { detail: Record<string, unknown> } {
    return { detail: { code: this.code, message: this.message, ...this.extra } };
  }
}

export function validationError(errors: ValidationIssue[], message?: string): ApiError {
  return new ApiError('VALIDATION_ERROR', message, { errors });
}

/** The store (disk, database) cannot serve the request now; nothing was changed. */
export function storageUnavailableError(): ApiError {
  return new ApiError('SERVER_BUSY', 'Storage is unavailable; nothing was changed. Please retry later.', {}, { 'Retry-After': '30' });
}
