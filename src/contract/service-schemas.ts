import { Type } from '@sinclair/typebox';

// The service's bodies outside the risk answers: errors, the upload form, health and readiness.

const Text = (description: string) => Type.String({ description });

export const ErrorBody = Type.Object({
  detail: Type.Object(
    {
      code: Text('Machine-readable error code (the table of codes is in the README and this document’s descriptions).'),
      message: Text('What went wrong, for a person.'),
      request_id: Type.Optional(Text('Id of the request (the X-Request-Id response header), for support and logs.')),
      errors: Type.Optional(
        Type.Array(
          Type.Object({
            loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
              description: 'Where: ["body", field, index, …], ["query", name] or ["header", name].',
            }),
            msg: Text('What is wrong there.'),
            type: Text('Kind of problem (e.g. missing, value_error, extra_forbidden).'),
          }),
          { description: 'Every problem found, one per location (VALIDATION_ERROR, UNKNOWN_SYMBOL, WEIGHTS_DO_NOT_SUM_TO_ONE).' },
        ),
      ),
      reason: Type.Optional(Text('INVALID_CSV: the rule the file broke.')),
      line: Type.Optional(Type.Integer({ description: 'INVALID_CSV: 1-based line of the file.' })),
      column: Type.Optional(Type.Integer({ description: 'INVALID_CSV: 1-based column of the file.' })),
      pair: Type.Optional(Text('MISSING_FX_RATE: the conversion no FX column gives, local then reporting currency (e.g. EURCHF).')),
      retry_after_s: Type.Optional(
        Type.Integer({ description: 'SERVER_BUSY for queued work: seconds until the work queued now is estimated to be done (as in Retry-After).' }),
      ),
    },
    { additionalProperties: true, description: 'The error; codes may add fields of their own (e.g. weight_sum, symbols).' },
  ),
});

export const UploadForm = Type.Object({
  file: Type.String({ format: 'binary', description: 'The CSV file: wide (date, then one column per symbol) or long (date, symbol, price).' }),
  currencies: Type.Optional(
    Type.String({
      description:
        'Multi-currency datasets: a JSON object {symbol: ISO 4217 code} of the series not in `base_currency`. Columns named CCY1CCY2 (two ISO codes) are FX rates, units of CCY2 per one CCY1, and have no entry. At most 48 KiB.',
      examples: ['{"SAP": "EUR", "BARC": "GBP"}'],
    }),
  ),
  base_currency: Type.Optional(
    Type.String({
      description:
        'Multi-currency datasets: the ISO 4217 currency of every series `currencies` does not name. Without both fields the dataset is single-currency.',
      examples: ['USD'],
    }),
  ),
});
export const Health = Type.Object({ status: Text('"ok": the process serves HTTP.') });
export const Ready = Type.Object({
  status: Text('"ready".'),
  engine: Text('The engine build the workers run.'),
  store_writable: Type.Boolean({ description: 'The dataset store accepted a test write.' }),
});
