// The on-disk dataset format: what is encoded decodes to the same dataset (NaN included), and a
// damaged file (flipped byte, truncation, foreign magic or version) is refused, never half-read.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { type Dataset } from '../../src/datasets/dataset.js';
import { decodeDatasetFile, encodeDatasetFile, type StoredDataset } from '../../src/datasets/dataset-file.js';
import { mulberry32 } from '../helpers/mulberry32.js';

const MAGIC_LEN = 'PRDS2\n'.length;

function stored(symbols: string[], rows: number, layout: Dataset['layout'] = 'wide', seed = 1): StoredDataset {
  const rand = mulberry32(seed);
  const dates = Array.from({ length: rows }, (_, d) => new Date(Date.UTC(2020, 0, 1 + d)).toISOString().slice(0, 10));
  const prices = Float64Array.from({ length: rows * symbols.length }, () => (rand() < 0.1 ? NaN : 0.01 + rand() * 1000));
  const missingValues = prices.filter(Number.isNaN).length;
  return { id: 'ds_0123456789abcdef', owner: 'key_owner', createdAt: '2024-05-06T07:08:09.000Z', dataset: { symbols, dates, prices, layout, missingValues } };
}

function roundTrips(t: Test, s: StoredDataset, why: string) {
  const back = decodeDatasetFile(encodeDatasetFile(s));
  t.same({ ...back, dataset: { ...back.dataset, prices: [] } }, { ...s, dataset: { ...s.dataset, prices: [] } }, `${why}: header fields`);
  t.ok(back.dataset.prices instanceof Float64Array, `${why}: prices are a Float64Array`);
  const a = back.dataset.prices;
  const b = s.dataset.prices;
  t.ok(a.length === b.length && a.every((x, i) => Object.is(x, b[i])), `${why}: prices bit-for-bit (NaN kept)`);
}

/** Decoding throws; returns the message. */
function refused(buf: Buffer): string | null {
  try {
    decodeDatasetFile(buf);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

t.test('round trips: layouts, missing values, sizes', async (t) => {
  roundTrips(t, stored(['A', 'B', 'C'], 50, 'wide'), 'wide');
  roundTrips(t, stored(['X', 'Y'], 20, 'long'), 'long');
  roundTrips(t, stored(['ONLY'], 1), 'one symbol, one date');
  roundTrips(t, stored([], 0), 'empty');
  roundTrips(
    t,
    stored(
      Array.from({ length: 1000 }, (_, i) => `SYM${i}`),
      30,
    ),
    'many symbols',
  );
  roundTrips(t, stored(['Ä "quoted"', 'naïve\\slash', '日本'], 5), 'symbols needing JSON escapes and multi-byte UTF-8');
  const allNaN = stored(['A', 'B'], 3);
  allNaN.dataset.prices.fill(NaN);
  allNaN.dataset.missingValues = 6;
  roundTrips(t, allNaN, 'every value missing');
  const odd = stored(['A'], 4);
  odd.dataset.prices.set([-0, Number.MIN_VALUE, Number.MAX_VALUE, Infinity]);
  roundTrips(t, odd, 'extreme doubles and negative zero');
});

t.test('a view into a larger buffer encodes only its own prices', async (t) => {
  const s = stored(['A', 'B'], 3);
  const big = new Float64Array(20).fill(7);
  big.set(s.dataset.prices, 5);
  const view = { ...s, dataset: { ...s.dataset, prices: big.subarray(5, 11) } };
  const back = decodeDatasetFile(encodeDatasetFile(view));
  t.same(Array.from(back.dataset.prices), Array.from(s.dataset.prices));
});

t.test('the price data starts 8-byte aligned, whatever the header length', async (t) => {
  for (let n = 0; n < 16; n++) {
    const s = stored(['A'], 2);
    s.owner = 'o'.repeat(n);
    const buf = encodeDatasetFile(s);
    t.equal((buf.length - 16) % 8, 0, `owner of ${n} chars`);
    t.equal(buf.readUInt32LE(MAGIC_LEN) % 8, (8 - ((MAGIC_LEN + 4) % 8)) % 8, 'header length pads to alignment');
  }
});

t.test('decoding works from an unaligned buffer', async (t) => {
  const s = stored(['A', 'B'], 5);
  const file = encodeDatasetFile(s);
  const shifted = Buffer.concat([Buffer.alloc(3), file]).subarray(3);
  t.equal(shifted.byteOffset % 8, 3);
  t.same(Array.from(decodeDatasetFile(shifted).dataset.prices), Array.from(s.dataset.prices));
});

t.test('a flipped byte in the magic, length or prices is detected', async (t) => {
  const file = encodeDatasetFile(stored(['A', 'B', 'C'], 4));
  const dataStart = file.length - 4 * 3 * 8;
  const missed: number[] = [];
  for (let i = 0; i < file.length; i++) {
    if (i >= MAGIC_LEN + 4 && i < dataStart) continue; // the JSON header: see the next test
    for (const mask of [0x01, 0x80, 0xff]) {
      const bad = Buffer.from(file);
      bad[i] = bad[i]! ^ mask;
      if (refused(bad) === null) missed.push(i);
    }
  }
  t.same(missed, [], `every flip in ${MAGIC_LEN + 4 + (file.length - dataStart)} bytes refused`);
  const bad = Buffer.from(file);
  bad[dataStart + 5] = bad[dataStart + 5]! ^ 0x10;
  t.equal(refused(bad), 'dataset checksum mismatch', 'a price flip fails the checksum');
});

t.test('a flipped byte in the JSON header is detected', async (t) => {
  const file = encodeDatasetFile(stored(['A', 'B', 'C'], 4));
  const dataStart = file.length - 4 * 3 * 8;
  const missed: number[] = [];
  for (let i = MAGIC_LEN + 4; i < dataStart; i++) {
    const bad = Buffer.from(file);
    bad[i] = bad[i]! ^ 0x01;
    if (refused(bad) === null) missed.push(i);
  }
  // Found by this test: version 1's checksum covered the prices only, so a flip that kept the JSON
  // valid (a date, a symbol, the owner, missing_values) decoded silently into different data.
  t.same(missed, [], 'no header flip accepted');
  const header = Buffer.from(file);
  const at = header.indexOf('2020-01-02');
  header[at + 9] = '3'.charCodeAt(0);
  t.not(refused(header), null, 'a changed date is refused');
});

t.test('truncated files are refused at every length', async (t) => {
  const file = encodeDatasetFile(stored(['A', 'B'], 3));
  const accepted: number[] = [];
  const reasons = new Set<string>();
  for (let n = 0; n < file.length; n++) {
    const msg = refused(file.subarray(0, n));
    if (msg === null) accepted.push(n);
    else reasons.add(msg);
  }
  t.same(accepted, [], `all ${file.length} proper prefixes refused`);
  t.ok(reasons.has('not a dataset file'), 'too short for magic and length');
  t.ok(reasons.has('truncated dataset header'), 'header cut');
  t.ok(reasons.has('truncated dataset'), 'prices cut');
  t.equal(refused(Buffer.concat([file, Buffer.alloc(8)])), 'truncated dataset', 'trailing bytes are refused too');
  t.equal(refused(Buffer.alloc(0)), 'not a dataset file', 'empty');
});

t.test('wrong magic or version is refused', async (t) => {
  const file = encodeDatasetFile(stored(['A'], 2));
  for (const magic of ['PRDS3\n', 'PRDS0\n', 'prds2\n', 'PRDS2\r', 'XRDS2\n']) {
    const bad = Buffer.concat([Buffer.from(magic), file.subarray(MAGIC_LEN)]);
    t.equal(refused(bad), 'not a dataset file', JSON.stringify(magic));
  }
  t.equal(refused(Buffer.from('{"id":"x"}')), 'not a dataset file', 'bare JSON');
  t.equal(refused(Buffer.from('PRDS2\n')), 'not a dataset file', 'magic alone');
  const huge = Buffer.from(file);
  huge.writeUInt32LE(0xffffffff, MAGIC_LEN);
  t.equal(refused(huge), 'truncated dataset header', 'a header length past the end');
});

t.test('version 1 files (checksum over the prices only) written before version 2 are still read', async (t) => {
  const v2 = encodeDatasetFile(stored(['A', 'B'], 3));
  const jsonLen = v2.readUInt32LE(MAGIC_LEN);
  const header = JSON.parse(v2.subarray(MAGIC_LEN + 4, MAGIC_LEN + 4 + jsonLen).toString('utf8')) as Record<string, unknown>;
  const data = v2.subarray(MAGIC_LEN + 4 + jsonLen);
  header.sha256 = createHash('sha256').update(data).digest('hex');
  const json = Buffer.from(JSON.stringify(header));
  const pad = (8 - ((MAGIC_LEN + 4 + json.length) % 8)) % 8;
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length + pad);
  const v1 = Buffer.concat([Buffer.from('PRDS1\n'), len, json, Buffer.alloc(pad, 0x20), data]);
  t.same(decodeDatasetFile(v1), decodeDatasetFile(v2), 'the same dataset');
  const flipped = Buffer.from(v1);
  flipped[flipped.length - 1] = flipped[flipped.length - 1]! ^ 0x01;
  t.equal(refused(flipped), 'dataset checksum mismatch', 'and its prices are still checked');
});
