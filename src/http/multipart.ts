import busboy from 'busboy';
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { ApiError, validationError } from '../contract/errors.js';
import { CsvError } from '../datasets/csv-error.js';
import { readCsv } from '../datasets/csv-reader.js';
import { type CurrencyFields, withCurrencies } from '../datasets/currencies.js';
import { type Dataset } from '../datasets/dataset.js';
import { type Exchange } from './exchange.js';

// A multipart upload streamed through busboy into the CSV reader: one file part named "file".

const MAX_PARTS = 5;
/** A text field's bytes: `currencies` names up to one code per symbol. */
const MAX_FIELD_BYTES = 48 * 1024;
/** Room for part headers and boundaries beyond the file itself. */
export const MULTIPART_OVERHEAD = 64 * 1024;

function csvFailure(e: CsvError): ApiError {
  return new ApiError('INVALID_CSV', e.message, {
    reason: e.reason,
    line: e.line,
    ...(e.column !== undefined ? { column: e.column } : {}),
  });
}

/** The parsed CSV of part "file", and the SHA-256 of its bytes (what an idempotent upload compares). */
export interface ReceivedDataset {
  dataset: Dataset;
  fileSha256: string;
}

/**
 * Streams the multipart body through busboy; resolves with the parsed CSV of part "file".
 * Every body byte counts, not only the file's: busboy silently truncates other parts, and a chunked
 * body has no Content-Length to guard, so a part of another name could otherwise be read without end.
 */
export function receiveDataset(ex: Exchange, limits: { maxBytes: number; maxSymbols: number }): Promise<ReceivedDataset> {
  const max = limits.maxBytes;
  const maxBody = max + MULTIPART_OVERHEAD;
  let received = 0;
  const hash = createHash('sha256');
  return new Promise<ReceivedDataset>((resolve, reject) => {
    let settled = false;
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      // Not destroyed here: this may run inside busboy's own callbacks. Nothing more is fed to it.
      setImmediate(() => file?.destroy());
      reject(e);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': ex.head.contentType },
        // busboy signals "limit" on reaching fileSize, so a file of exactly `max` bytes needs max + 1.
        limits: { fileSize: max + 1, files: 1, parts: MAX_PARTS, fields: MAX_PARTS, fieldSize: MAX_FIELD_BYTES, fieldNameSize: 200, headerPairs: 20 },
      });
    } catch {
      reject(new ApiError('MALFORMED_MULTIPART', 'Content-Type multipart/form-data needs a boundary.'));
      return;
    }
    let file: PassThrough | null = null;
    let dataset: Promise<Dataset> | null = null;
    let truncated = false;
    const fields: CurrencyFields = {};

    parser.on('field', (name, value, info) => {
      if (name !== 'currencies' && name !== 'base_currency') return;
      if (info.valueTruncated) fail(validationError([{ loc: ['body', name], msg: `at most ${MAX_FIELD_BYTES} bytes`, type: 'string_too_long' }]));
      fields[name] = value;
    });

    parser.on('file', (name, stream) => {
      // A truncated body errors the part's stream too; every stream gets a handler.
      stream.on('error', (e: Error) => fail(new ApiError('MALFORMED_MULTIPART', `The multipart body is malformed: ${e.message.slice(0, 100)}.`)));
      if (name !== 'file') {
        stream.resume(); // drain: not the part we want
        return;
      }
      const pipe = new PassThrough();
      file = pipe;
      stream.on('limit', () => {
        truncated = true;
        fail(new ApiError('PAYLOAD_TOO_LARGE', `The file exceeds MAX_UPLOAD_BYTES (${max} bytes).`));
      });
      stream.on('data', (chunk: Buffer) => hash.update(chunk));
      stream.pipe(pipe);
      dataset = readCsv(pipe, { maxSymbols: limits.maxSymbols });
      // Size comes before content: a CSV error is reported once the whole body is in, unless the
      // file turns out too large (413). Meanwhile the rest of the file is drained.
      // (Leaving its `for await` early destroys `pipe`, so the part's own stream is drained.)
      dataset.catch(() => {
        stream.unpipe(pipe);
        stream.resume();
      });
    });
    parser.on('partsLimit', () => fail(new ApiError('PAYLOAD_TOO_LARGE', `At most ${MAX_PARTS} parts.`)));
    parser.on('filesLimit', () => fail(validationError([{ loc: ['body', 'file'], msg: 'exactly one file part is allowed', type: 'value_error' }])));
    parser.on('fieldsLimit', () => fail(new ApiError('PAYLOAD_TOO_LARGE', `At most ${MAX_PARTS} parts.`)));
    parser.on('error', (e: Error) => fail(new ApiError('MALFORMED_MULTIPART', `The multipart body is malformed: ${e.message.slice(0, 100)}.`)));
    parser.on('close', () => {
      if (settled) return;
      if (!dataset) return fail(new ApiError('MISSING_FILE', 'The upload needs one file part named "file".'));
      if (truncated) return;
      dataset.then(
        (d) => {
          if (settled) return;
          try {
            const dataset = withCurrencies(d, fields);
            // An idempotent replay must match the currencies too, not only the file.
            if (dataset.currencies) hash.update(JSON.stringify(['\u0000currencies', fields.currencies ?? null, fields.base_currency ?? null]));
            settled = true;
            resolve({ dataset, fileSha256: hash.digest('hex') });
          } catch (e) {
            fail(e);
          }
        },
        (e: unknown) => fail(e instanceof CsvError ? csvFailure(e) : e),
      );
    });

    ex.onAbort(() => fail(new Error('client aborted')));
    ex.onBody((chunk, isLast) => {
      if (settled) return;
      received += chunk.byteLength;
      if (received > maxBody) {
        ex.closeAfter = true; // the rest of the body is never read: the connection ends with the answer
        fail(new ApiError('PAYLOAD_TOO_LARGE', `The body exceeds MAX_UPLOAD_BYTES (${max} bytes) plus ${MULTIPART_OVERHEAD} bytes of multipart framing.`));
        return;
      }
      parser.write(chunk);
      if (isLast) parser.end();
    });
  });
}
