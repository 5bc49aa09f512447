// Reading, encoding and describing a large dataset leave the event loop free between slices of the
// work (review L7), counted by order: a setImmediate heartbeat started beside the work must beat
// many times before the work is done. Before, the CSV already received was read in one run of
// promise callbacks and the rest ran in one piece: the heartbeat did not beat at all.
import t from 'tap';
import { readCsv } from '../../src/datasets/csv-reader.js';
import { encodeDatasetFile, encodeDatasetFileInTurns } from '../../src/datasets/dataset-file.js';
import { computeQuality, datasetQualityInTurns } from '../../src/datasets/quality.js';
import { mulberry32 } from '../helpers/mulberry32.js';

/** How many turns of the event loop pass while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const beat = () => {
    if (done) return;
    turns++;
    setImmediate(beat);
  };
  setImmediate(beat);
  const value = await work();
  done = true;
  return { value, turns };
}

/** 200 symbols × 3,000 dates (600,000 prices, about 5 MB of CSV), in 512 KiB chunks all at hand. */
function csvChunks(): Buffer[] {
  const rand = mulberry32(11);
  const lines = ['date,' + Array.from({ length: 200 }, (_, i) => `S${i}`).join(',')];
  const day = new Date(Date.UTC(2000, 0, 1));
  for (let d = 0; d < 3000; d++) {
    lines.push(day.toISOString().slice(0, 10) + ',' + Array.from({ length: 200 }, () => (10 + 90 * rand()).toFixed(4)).join(','));
    day.setUTCDate(day.getUTCDate() + 1);
  }
  const all = Buffer.from(lines.join('\n') + '\n');
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += 512 * 1024) chunks.push(all.subarray(at, at + 512 * 1024));
  return chunks;
}

t.test('a received CSV is read, encoded and described with the event loop turning meanwhile', async (t) => {
  const chunks = csvChunks();
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  const read = await turnsDuring(() =>
    readCsv(
      (async function* () {
        yield* chunks; // everything already received: nothing but the reader's own pauses lets the loop turn
      })(),
      { maxSymbols: 5000 },
    ),
  );
  const dataset = read.value;
  t.equal(dataset.symbols.length * dataset.dates.length, 600_000);
  // One pause per 32 KiB parsed, and more while the matrix is assembled.
  t.ok(read.turns >= bytes / (64 * 1024), `${read.turns} turns while reading ${bytes} bytes`);

  const stored = { id: 'ds_turns', owner: 'o', createdAt: '2026-11-25T00:00:00.000Z', dataset };
  const encoded = await turnsDuring(() => encodeDatasetFileInTurns(stored));
  t.ok(encoded.value.equals(encodeDatasetFile(stored)), 'the same bytes as the encoding in one piece');
  t.ok(encoded.turns >= 1, `${encoded.turns} turns while hashing 4.8 MB of prices`);

  const described = await turnsDuring(() => datasetQualityInTurns(dataset));
  t.same(described.value, computeQuality(dataset), 'the same quality report as computed in one piece');
  t.ok(described.turns >= 600_000 / 65_536 - 1, `${described.turns} turns while describing 600,000 prices`);
});
