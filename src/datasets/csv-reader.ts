import { CsvError as ParseError, parse, type Parser } from 'csv-parse';
import { CsvError } from './csv-error.js';
import { detectDelimiter } from './csv-values.js';
import { DatasetBuilder, type BuilderLimits } from './dataset-builder.js';
import { type Dataset } from './dataset.js';

/** Longest record accepted: a line beyond this is not a price row (and would hold memory). */
const MAX_RECORD_BYTES = 1024 * 1024;
/**
 * Bytes parsed between two turns of the event loop. A body already received is otherwise parsed
 * to its end in one run of promise callbacks, which never lets the loop answer anyone (review L7).
 */
const BYTES_PER_TURN = 32 * 1024;

interface ParsedRecord {
  record: string[];
  info: { lines: number };
}

/**
 * Reads a CSV price history from a stream of bytes: UTF-8 (BOM allowed), LF or CRLF, RFC 4180
 * quoting, delimiter from the header line. Throws CsvError with the line (and column) at fault.
 */
export async function readCsv(chunks: AsyncIterable<Buffer>, limits: BuilderLimits): Promise<Dataset> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let head = '';
  let parser: Parser | null = null;
  let builder: DatasetBuilder | null = null;
  let failure: unknown = null;
  let lastLine = 1;
  let finished: Promise<void> = Promise.resolve();

  const start = (headerLine: string) => {
    const delimiter = detectDelimiter(headerLine);
    builder = new DatasetBuilder(limits, delimiter === ';');
    const p = parse({ delimiter, info: true, relax_column_count: true, max_record_size: MAX_RECORD_BYTES });
    p.on('data', ({ record, info }: ParsedRecord) => {
      if (failure) return;
      lastLine = info.lines;
      try {
        builder!.add(record, info.lines);
      } catch (e) {
        failure = e;
      }
    });
    // Parse errors end the parse; they are reported through `failure`, never as a rejection
    // nobody awaits.
    finished = new Promise((resolve) => {
      p.on('end', resolve);
      p.on('close', resolve);
      p.on('error', (e) => {
        failure ??= e;
        resolve();
      });
    });
    parser = p;
  };

  const feed = async (text: string) => {
    if (text.includes('\u0000')) throw new CsvError('BINARY_CONTENT', 'the file holds binary data, not CSV text', lastLine);
    if (!parser) {
      head += text;
      const newline = head.indexOf('\n');
      if (newline < 0 && head.length < MAX_RECORD_BYTES) return;
      start(newline < 0 ? head : head.slice(0, newline));
      text = head;
      head = '';
    }
    if (!parser!.write(text)) await Promise.race([new Promise((resolve) => parser!.once('drain', resolve)), finished]);
    if (failure) throw failure;
  };

  try {
    let sinceTurn = 0;
    for await (const chunk of chunks) {
      for (let at = 0; at < chunk.length; at += BYTES_PER_TURN) {
        const slice = chunk.subarray(at, at + BYTES_PER_TURN);
        await feed(decoder.decode(slice, { stream: true })); // a UTF-8 sequence cut at the edge is held by the decoder
        sinceTurn += slice.length;
        if (sinceTurn >= BYTES_PER_TURN) {
          sinceTurn = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    }
    await feed(decoder.decode());
    if (!parser) {
      if (head.trim() === '') throw new CsvError('EMPTY_FILE', 'the file is empty', 1);
      start(head);
      parser!.write(head);
    }
    parser!.end();
    await finished;
    if (failure) throw failure;
  } catch (e) {
    (parser as Parser | null)?.destroy();
    throw toCsvError(e, lastLine);
  }
  return builder!.finish(lastLine);
}

function toCsvError(e: unknown, line: number): unknown {
  if (e instanceof CsvError) return e;
  if (e instanceof TypeError && /encoded data was not valid/i.test(e.message)) {
    return new CsvError('INVALID_ENCODING', 'the file is not valid UTF-8 text', line);
  }
  // Every csv-parse error (some codes lack the CSV_ prefix) is a malformed file, never a 500.
  if (e instanceof ParseError) {
    const err = e as ParseError & { lines?: number };
    const where = typeof err.lines === 'number' ? err.lines : line;
    const what =
      err.code === 'CSV_MAX_RECORD_SIZE' ? 'a record longer than 1 MiB' : err.code === 'CSV_QUOTE_NOT_CLOSED' ? 'an unterminated quote' : 'malformed quoting';
    return new CsvError('MALFORMED_CSV', `the CSV has ${what} near line ${where}`, where);
  }
  return e;
}
