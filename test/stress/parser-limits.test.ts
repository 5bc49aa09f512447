// The three limits of the old uWebSockets.js parser (security review M1 and schemathesis's
// findings), checked on whichever build serves: the old republish (Node ≤ 20 on glibc 2.36) keeps
// them, and this test says so; the official v20.56.0 binaries (Node 22/24 on glibc ≥ 2.38, the
// image) answer them. Run on this machine by `npm run test:stress` and inside the image by the
// container test, so both builds are checked on every CI run.
import t from 'tap';
import { call } from '../helpers/http.js';
import { rawExchange, statusOf } from '../helpers/raw-socket.js';
import { startTestService } from '../helpers/service.js';

const s = await startTestService();
t.teardown(() => s.stop());
const port = Number(new URL(s.base).port);
const metrics = (await call(s.base, 'GET', '/metrics')).text;
const serving = /^risk_http_server_info\{package="([^"]+)",version="([^"]+)"/m.exec(metrics);
const official = serving?.[1] === '@btc-vision/uwebsockets.js';
// The old build never answers these: the bound is how long "no answer" is waited for, not a speed.
const SILENT_MS = 2000;

t.test(`which build serves: ${serving?.[1]} ${serving?.[2]} on Node ${process.version}`, async (t) => {
  t.ok(serving, 'risk_http_server_info names the build');
  t.match(metrics, new RegExp(`node="${process.version.replace(/\./g, '\\.')}"`), 'and the Node');
});

t.test('HTTP/1.0 (nginx proxy_pass by default, HAProxy httpchk)', async (t) => {
  for (const request of ['GET /healthz HTTP/1.0\r\n\r\n', 'GET /healthz HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n']) {
    const r = await rawExchange(port, request, SILENT_MS);
    if (official) {
      // Refused at once and visibly (the proxy logs a 505), not left hanging: proxies must still
      // speak HTTP/1.1 to the service (docs/operations.md).
      t.match(r, /^HTTP\/1\.1 505 HTTP Version Not Supported\r\n/, 'answered 505 at once');
      t.match(r, /\r\nConnection: close\r\n/i, 'and closed');
    } else t.equal(r, '', `no answer within ${SILENT_MS} ms (the old build's limit, M1)`);
  }
});

t.test('header names holding "." or "~" (valid tokens)', async (t) => {
  for (const name of ['X.Trace', 'X~Trace', 'a.b~c']) {
    const r = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\n${name}: 1\r\nConnection: close\r\n\r\n`, SILENT_MS);
    if (official) t.equal(statusOf(r), 200, `${name}: answered`);
    else t.equal(statusOf(r), 0, `${name}: the old parser answers nothing`);
  }
});

t.test('methods the service does not route (QUERY, PURGE, FOO)', async (t) => {
  for (const method of ['QUERY', 'PURGE', 'FOO']) {
    const r = await rawExchange(port, `${method} /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, SILENT_MS);
    if (official) {
      t.equal(statusOf(r), 405, `${method}: the service's own 405`);
      t.match(r, /\r\nAllow: GET\r\n/i, 'with Allow');
      t.match(r, /"code":"METHOD_NOT_ALLOWED"/, 'in the error shape of every answer');
    } else t.equal(r, '', `${method}: the old parser closes the connection unanswered`);
  }
});
