// A large upload leaves the event loop free for others (review L7: a 50 MB upload held it for up
// to 0.49 s). Checked by order, not by time. Once the dataset's file is renamed into place, the
// owner's listing is asked for again and again on a connection of its own (each request sent as
// the last answer arrives). The store lists the dataset as soon as the file is durable; the
// server still has to build the upload's answer (the quality report of 800,000 prices). If that
// work runs in one piece, as it did, nothing is answered meanwhile and the upload's answer comes
// before any listing that shows the dataset; with the event loop free between its slices, a
// listing showing the dataset is answered first.
import { watch } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import { checkAgainstDocument } from '../helpers/response-validation.js';
import { csvForm } from '../helpers/http.js';
import { mulberry32 } from '../helpers/mulberry32.js';
import { startTestService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const SYMBOLS = 100;
const DATES = 8000;

/** A wide random walk: 100 symbols over 8,000 calendar days (about 6 MB). */
function largeCsv(): string {
  const rand = mulberry32(7);
  const prices = Array.from({ length: SYMBOLS }, () => 50 + 100 * rand());
  const lines = [['date', ...prices.map((_, i) => `S${i}`)].join(',')];
  const day = new Date(Date.UTC(1990, 0, 1));
  for (let d = 0; d < DATES; d++) {
    lines.push([day.toISOString().slice(0, 10), ...prices.map((p) => p.toFixed(4))].join(','));
    for (let i = 0; i < SYMBOLS; i++) prices[i] = prices[i]! * (1 + (rand() - 0.5) * 0.02);
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return lines.join('\n') + '\n';
}

t.test('requests are answered while an upload builds its answer', async (t) => {
  const s = await startTestService({ MAX_UPLOAD_BYTES: String(20 * 1024 * 1024) });
  t.teardown(() => s.stop());
  const csv = largeCsv();
  const order: string[] = [];

  // The listing's connection is open before the upload starts: asking again costs one write.
  const lister = net.connect(Number(new URL(s.base).port), '127.0.0.1');
  t.teardown(() => lister.destroy());
  await new Promise((resolve) => lister.once('connect', resolve));
  const ask = () => lister.write(`GET /api/v1/risk/datasets?limit=1 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${s.key}\r\n\r\n`);
  let polling = false;
  let raw = '';
  lister.on('data', (c: Buffer) => {
    raw += c.toString();
    const end = raw.indexOf('\r\n\r\n');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, end))?.[1] ?? NaN);
    if (end < 0 || raw.length < end + 4 + length) return; // not a whole answer yet
    const body = raw.slice(end + 4, end + 4 + length);
    raw = raw.slice(end + 4 + length);
    if (body.includes('"ds_')) {
      if (!order.includes('listed')) order.push('listed');
      polling = false;
    }
    if (polling) ask();
  });

  const dir = path.join(s.config.dataDir, 'datasets');
  const watcher = watch(dir, (_event, name) => {
    if (polling || order.includes('stored') || !/^ds_\w+\.ds$/.test(String(name))) return;
    order.push('stored');
    polling = true;
    ask();
  });
  t.teardown(() => watcher.close());

  const res = await fetch(`${s.base}/api/v1/risk/datasets/upload`, { method: 'POST', headers: { 'X-API-Key': s.key }, body: csvForm(csv) });
  order.push('upload answered');
  const body = await res.text();
  checkAgainstDocument('POST', '/api/v1/risk/datasets/upload', { status: res.status, headers: res.headers, body: JSON.parse(body), text: body });
  t.equal(res.status, 200, 'uploaded');
  // Before the fix the listing shows the dataset only after the upload's answer: wait for it too.
  await waitFor(() => (order.includes('listed') ? true : undefined), 'a listing that shows the dataset', 60_000);
  t.same(order, ['stored', 'listed', 'upload answered'], 'the listing is answered while the upload builds its answer, not after it');
});
