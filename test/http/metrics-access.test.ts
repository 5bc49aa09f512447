// /metrics shows the runtime, the engine build and per-route and per-owner counts, so it is not
// open to anyone who can reach the port (review L3): with METRICS_TOKEN it needs that bearer token;
// without it only a loopback listener serves it.
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { call } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';

const TOKEN = 'metrics-token-0123456789abcdef';

t.test('METRICS_TOKEN set: only Authorization: Bearer <token> reads /metrics', async (t) => {
  const s = await startTestService({ METRICS_TOKEN: TOKEN });
  t.teardown(() => s.stop());
  const refusals: [string, Record<string, string>][] = [
    ['no Authorization', {}],
    ['a wrong token', { Authorization: 'Bearer metrics-token-0123456789abcdeX' }],
    ['the token as another scheme', { Authorization: `Basic ${TOKEN}` }],
    ['a prefix of the token', { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['an API key instead', { 'X-API-Key': s.key }],
  ];
  for (const [label, headers] of refusals) {
    const r = await call(s.base, 'GET', '/metrics', { headers });
    t.equal(r.status, 401, `${label}: 401`);
    t.equal(r.body?.detail?.code, 'METRICS_TOKEN_INVALID', `${label}: the contract's error shape`);
    t.equal(r.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    t.notMatch(r.text, /http_requests_total|nodejs_version_info/, `${label}: no metric shown`);
  }
  const ok = await call(s.base, 'GET', '/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
  t.equal(ok.status, 200, 'the token: 200');
  t.match(ok.text, /^http_requests_total\{route="\/metrics",method="GET",status="401"\} 5$/m, 'and the refusals are counted');
});

t.test('METRICS_TOKEN unset: a loopback listener serves /metrics, any other listener does not', async (t) => {
  const loopback = await startTestService();
  t.teardown(() => loopback.stop());
  t.equal((await call(loopback.base, 'GET', '/metrics')).status, 200, 'HOST=127.0.0.1: served');

  const open = await startTestService({ HOST: '0.0.0.0' });
  t.teardown(() => open.stop());
  const r = await call(open.base, 'GET', '/metrics');
  t.equal(r.status, 404, 'HOST=0.0.0.0 without a token: not served, even to a local client');
  t.equal(r.body?.detail?.code, 'NOT_FOUND');
  t.notMatch(r.text, /http_requests_total/);
  t.equal((await call(open.base, 'GET', '/healthz')).status, 200, 'the other operations routes still answer');
});

t.test('METRICS_TOKEN must be a real secret: 16 or more printable characters', async (t) => {
  t.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN must be at least 16/);
  t.throws(() => loadConfig({ METRICS_TOKEN: 'has a space in it, long' }), /METRICS_TOKEN/);
  t.equal(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken, TOKEN);
  t.equal(loadConfig({}).metricsToken, undefined);
});
