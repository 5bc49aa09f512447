import { createHash } from 'node:crypto';
import { type Dataset, type DatasetCurrencies } from './dataset.js';

/**
 * One dataset, one file: a magic line, a JSON header (owner, symbols, dates, checksum) and the
 * price matrix as f64 in the machine's byte order (little-endian on every platform Node runs the
 * service on). A single file makes the atomic rename cover everything. Version 2's checksum covers
 * the header as well as the prices; version 1 files (prices only) are still read.
 */
const MAGIC = Buffer.from('PRDS2\n');
const MAGIC_V1 = Buffer.from('PRDS1\n');

export interface StoredDataset {
  id: string;
  owner: string;
  createdAt: string;
  dataset: Dataset;
}

interface Header {
  id: string;
  owner: string;
  created_at: string;
  symbols: string[];
  dates: string[];
  layout: 'wide' | 'long';
  missing_values: number;
  /** Multi-currency datasets only: absent from single-currency files, which keep their bytes. */
  currencies?: DatasetCurrencies;
  sha256: string;
}

function priceBytes(prices: Float64Array): Buffer {
  return Buffer.from(prices.buffer, prices.byteOffset, prices.byteLength);
}

/** Version 2: SHA-256 of the header's JSON without its checksum, then of the prices. */
function checksum(unsigned: Omit<Header, 'sha256'>, data: Buffer): string {
  return createHash('sha256').update(JSON.stringify(unsigned)).update(data).digest('hex');
}

/** Price bytes hashed between two turns of the event loop (a few ms of SHA-256). */
const HASHED_PER_TURN = 4 * 1024 * 1024;

/** The same checksum, the event loop free between slices of the prices (review L7: 50 MB uploads). */
async function checksumInTurns(unsigned: Omit<Header, 'sha256'>, data: Buffer): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(unsigned));
  for (let at = 0; at < data.length; at += HASHED_PER_TURN) {
    hash.update(data.subarray(at, at + HASHED_PER_TURN));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return hash.digest('hex');
}

function unsignedHeader(s: StoredDataset): Omit<Header, 'sha256'> {
  return {
    id: s.id,
    owner: s.owner,
    created_at: s.createdAt,
    symbols: s.dataset.symbols,
    dates: s.dataset.dates,
    layout: s.dataset.layout,
    missing_values: s.dataset.missingValues,
    ...(s.dataset.currencies ? { currencies: s.dataset.currencies } : {}),
  };
}

export function encodeDatasetFile(s: StoredDataset): Buffer {
  const data = priceBytes(s.dataset.prices);
  const unsigned = unsignedHeader(s);
  return assemble({ ...unsigned, sha256: checksum(unsigned, data) }, data);
}

/** encodeDatasetFile's bytes exactly, with the checksum computed in turns (checksumInTurns). */
export async function encodeDatasetFileInTurns(s: StoredDataset): Promise<Buffer> {
  const data = priceBytes(s.dataset.prices);
  const unsigned = unsignedHeader(s);
  return assemble({ ...unsigned, sha256: await checksumInTurns(unsigned, data) }, data);
}

function assemble(header: Header, data: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  // Pad so that the f64 data starts 8-byte aligned.
  const prefix = MAGIC.length + 4 + json.length;
  const pad = (8 - (prefix % 8)) % 8;
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length + pad);
  return Buffer.concat([MAGIC, len, json, Buffer.alloc(pad, 0x20), data]);
}

/** What a listing shows of a stored dataset, read from its header alone. */
export interface DatasetListing {
  id: string;
  owner: string;
  createdAt: string;
  symbolCount: number;
  rows: number;
}

/** Bytes before the header's JSON, and the JSON's length (with padding) read from them. */
export const HEADER_PREFIX = MAGIC.length + 4;
export const headerLength = (prefix: Buffer) => prefix.readUInt32LE(MAGIC.length);

/** The listing of a dataset from the start of its file (at least HEADER_PREFIX + headerLength bytes). */
export function decodeDatasetListing(head: Buffer): DatasetListing {
  const magic = head.subarray(0, MAGIC.length);
  if (!(magic.equals(MAGIC) || magic.equals(MAGIC_V1))) throw new Error('not a dataset file');
  const header = JSON.parse(head.subarray(HEADER_PREFIX, HEADER_PREFIX + headerLength(head)).toString('utf8')) as Header;
  return { id: header.id, owner: header.owner, createdAt: header.created_at, symbolCount: header.symbols.length, rows: header.dates.length };
}

/** Decodes and verifies a dataset file; throws on any corruption. */
export function decodeDatasetFile(buf: Buffer): StoredDataset {
  const magic = buf.subarray(0, MAGIC.length);
  const legacy = magic.equals(MAGIC_V1);
  if (buf.length < MAGIC.length + 4 || !(legacy || magic.equals(MAGIC))) {
    throw new Error('not a dataset file');
  }
  const jsonLen = buf.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4 + jsonLen;
  if (start > buf.length) throw new Error('truncated dataset header');
  const header = JSON.parse(buf.subarray(MAGIC.length + 4, start).toString('utf8')) as Header;
  const data = buf.subarray(start);
  if (data.length !== header.dates.length * header.symbols.length * 8) throw new Error('truncated dataset');
  const { sha256, ...unsigned } = header;
  const expected = legacy ? createHash('sha256').update(data).digest('hex') : checksum(unsigned, data);
  if (expected !== sha256) throw new Error('dataset checksum mismatch');
  const prices = new Float64Array(data.length / 8);
  Buffer.from(prices.buffer).set(data);
  return {
    id: header.id,
    owner: header.owner,
    createdAt: header.created_at,
    dataset: {
      symbols: header.symbols,
      dates: header.dates,
      prices,
      layout: header.layout,
      missingValues: header.missing_values,
      ...(header.currencies ? { currencies: header.currencies } : {}),
    },
  };
}
