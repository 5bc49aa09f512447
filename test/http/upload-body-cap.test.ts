// Every byte of a multipart body counts toward the upload's cap, not only the file part's (review
// L1): a chunked upload (no Content-Length to guard) whose file part has another name is refused
// with 413 while it is still being sent, instead of being read to its end and refused with 422.
import net from 'node:net';
import t from 'tap';
import { startTestService } from '../helpers/service.js';

const MAX_UPLOAD = 100_000;
/** MULTIPART_OVERHEAD (64 KiB) beyond the cap, and then some: the body that must be refused. */
const REFUSED_BEYOND = MAX_UPLOAD + 64 * 1024;
/** Where the client gives up and ends its body: far beyond the cap, so a server that reads it all still answers. */
const SENDER_GIVES_UP = 40 * REFUSED_BEYOND;

interface Outcome {
  status: number;
  body: { detail?: { code?: string } };
  /** Body bytes written before the answer arrived (or all of them, if it came after the end). */
  sentBeforeAnswer: number;
  ended: boolean;
}

/** Sends a chunked multipart body, one chunk at a time, until an answer arrives or SENDER_GIVES_UP. */
function chunkedUpload(port: number, key: string, partName: string): Promise<Outcome> {
  const boundary = 'capboundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${partName}"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\ndate,A\r\n`;
  const row = Buffer.from('2020-01-01,1\r\n'.repeat(4096));
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let raw = Buffer.alloc(0);
    let sent = 0;
    let answered = false;
    let sentBeforeAnswer = 0;
    let ended = false;
    const chunk = (data: Buffer | string) => {
      const bytes = Buffer.from(data);
      sent += bytes.length;
      return socket.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]));
    };
    const pump = () => {
      while (!answered && !ended && !socket.destroyed) {
        if (sent >= SENDER_GIVES_UP) {
          chunk(`\r\n--${boundary}--\r\n`);
          socket.write('0\r\n\r\n');
          ended = true;
          return;
        }
        if (!chunk(row)) return; // wait for 'drain'
      }
    };
    socket.on('drain', pump);
    socket.on('error', () => undefined); // the server may close while this side still writes
    socket.on('data', (c: Buffer) => {
      if (!answered) {
        answered = true;
        sentBeforeAnswer = sent;
      }
      raw = Buffer.concat([raw, c]);
      const text = raw.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (raw.length - end - 4 < length) return;
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      resolve({ status, body: JSON.parse(raw.subarray(end + 4, end + 4 + length).toString()) as Outcome['body'], sentBeforeAnswer, ended });
    });
    socket.on('close', () => reject(new Error(`closed without a whole answer (${raw.length} bytes)`)));
    socket.on('connect', () => {
      socket.write(
        'POST /api/v1/risk/datasets/upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n' +
          `X-API-Key: ${key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n\r\n`,
      );
      chunk(head);
      pump();
    });
  });
}

t.test('a chunked upload whose part is not "file" is refused with 413 once the body passes the cap', async (t) => {
  const s = await startTestService({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD) });
  t.teardown(() => s.stop());
  const port = Number(new URL(s.base).port);

  const other = await chunkedUpload(port, s.key, 'x');
  t.equal(other.status, 413, `413, not a read-in-full 422 (${other.body.detail?.code})`);
  t.equal(other.body.detail?.code, 'PAYLOAD_TOO_LARGE');
  t.notOk(other.ended, 'answered while the body was still being sent');
  t.ok(other.sentBeforeAnswer < SENDER_GIVES_UP, `${other.sentBeforeAnswer} bytes sent before the answer`);

  // The part named "file" meets its own limit as before.
  const file = await chunkedUpload(port, s.key, 'file');
  t.equal(file.status, 413, 'the file part beyond MAX_UPLOAD_BYTES: 413');
  t.equal(file.body.detail?.code, 'PAYLOAD_TOO_LARGE');

  t.equal((await fetch(`${s.base}/healthz`)).status, 200, 'the service still answers');
});
