/** Why an uploaded file is not a usable price history (422 INVALID_CSV). */
export type CsvReason =
  | 'EMPTY_FILE'
  | 'INVALID_ENCODING'
  | 'BINARY_CONTENT'
  | 'MALFORMED_CSV'
  | 'MISSING_COLUMNS'
  | 'DUPLICATE_SYMBOL'
  | 'INVALID_SYMBOL'
  | 'COLUMN_COUNT'
  | 'INVALID_DATE'
  | 'INVALID_PRICE'
  | 'DUPLICATE_DATE'
  | 'TOO_FEW_DATES'
  | 'NO_SYMBOLS'
  | 'TOO_MANY_SYMBOLS';

export class CsvError extends Error {
  constructor(
    readonly reason: CsvReason,
    message: string,
    readonly line: number,
    readonly column?: number,
  ) {
    super(message);
  }
}
