// Review M2: a request whose body length is ambiguous is answered 400 once and its connection
// closed, so the bytes after it are never read as a second (smuggled) request.
import net from 'node:net';
import t from 'tap';
import { startTestService } from '../helpers/service.js';

/** Everything the server sends on one socket until it closes it (or a generous deadline passes). */
function untilClosed(port: number, payload: string, ms = 20_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, ms);
    socket.on('data', (c) => (text += c.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.write(payload);
  });
}

const SMUGGLED = 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n';

const s = await startTestService();
t.teardown(() => s.stop());
const port = s.service.port;

const cases: [string, string][] = [
  ['two different Content-Length (the review’s bytes)', 'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 40\r\n\r\nhello' + SMUGGLED],
  ['two equal Content-Length', 'POST /api/v1/risk/calculate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello' + SMUGGLED],
  ['Transfer-Encoding: xchunked', 'POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n' + SMUGGLED],
  [
    'Transfer-Encoding: chunked, identity',
    'POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n' + SMUGGLED,
  ],
  [
    'two Transfer-Encoding headers',
    'POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n' + SMUGGLED,
  ],
];

for (const [name, payload] of cases) {
  t.test(name, async (t) => {
    const { text, closed } = await untilClosed(port, payload);
    const answers = text.match(/HTTP\/1\.1 \d{3}/g) ?? [];
    t.same(answers, ['HTTP/1.1 400'], 'one answer, 400');
    t.ok(closed, 'then the server closes the connection');
    t.notMatch(text, /http_requests_total|# HELP/, 'the smuggled GET /metrics is never answered');
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { detail: Record<string, unknown> };
    t.equal(body.detail.code, 'MALFORMED_JSON', 'the contract’s error body');
    t.match(String(body.detail.message), /framing is ambiguous/);
    t.match(text, /\r\ncache-control: no-store\r\n/i);
  });
}

t.test('well-framed requests are still answered: pipelined, and exactly chunked', async (t) => {
  const pipelined = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
  t.same((await untilClosed(port, pipelined)).text.match(/HTTP\/1\.1 \d{3}/g), ['HTTP/1.1 200', 'HTTP/1.1 200']);
  const chunked = 'POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n';
  t.same((await untilClosed(port, chunked)).text.match(/HTTP\/1\.1 \d{3}/g), ['HTTP/1.1 405']);
});
