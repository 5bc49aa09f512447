// Route matching: found (with params), wrong method (405 with the Allow list) or none (404). Paths
// are matched exactly as received: no trailing-slash folding, no decoding of %-escapes.
import t from 'tap';
import { type Handler } from '../../src/http/context.js';
import { Router, type RouteMatch } from '../../src/http/router.js';

const h = (name: string): Handler => Object.assign(() => undefined, { label: name });
const health = h('health');
const upload = h('upload');
const getDs = h('get');
const delDs = h('delete');
const getLeg = h('leg');

// The service's own table (server.ts), plus a two-parameter route.
const router = new Router()
  .add('/healthz', { GET: health })
  .add('/api/v1/openapi.json', { GET: health })
  .add('/api/v1/risk/datasets/upload', { POST: upload })
  .add('/api/v1/risk/datasets/:id', { GET: getDs, DELETE: delDs })
  .add('/api/v1/books/:book/legs/:leg', { GET: getLeg });

function found(m: RouteMatch): Extract<RouteMatch, { kind: 'found' }> {
  if (m.kind !== 'found') throw new Error(`expected found, got ${JSON.stringify(m)}`);
  return m;
}

t.test('an exact path with the right method is found, with no params', async (t) => {
  const m = found(router.match('GET', '/healthz'));
  t.equal(m.name, '/healthz');
  t.equal(m.handler, health, 'the registered handler itself');
  t.same(m.params, {});
});

t.test('parameters are captured by name, one segment each', async (t) => {
  const get = found(router.match('GET', '/api/v1/risk/datasets/ds_abc123'));
  t.equal(get.handler, getDs);
  t.equal(get.name, '/api/v1/risk/datasets/:id', 'name is the pattern, for metrics labels');
  t.same(get.params, { id: 'ds_abc123' });
  t.equal(found(router.match('DELETE', '/api/v1/risk/datasets/x')).handler, delDs, 'method picks the handler');
  const two = found(router.match('GET', '/api/v1/books/b1/legs/7'));
  t.same(two.params, { book: 'b1', leg: '7' });
  t.equal(Object.getPrototypeOf(two.params), Object.prototype, 'params are a plain object');
});

t.test('a known path with another method is 405 with the allowed methods', async (t) => {
  t.same(router.match('POST', '/healthz'), { kind: 'method', name: '/healthz', allow: ['GET'] });
  t.same(router.match('PUT', '/api/v1/risk/datasets/ds_1'), { kind: 'method', name: '/api/v1/risk/datasets/:id', allow: ['GET', 'DELETE'] });
  t.same(router.match('HEAD', '/healthz'), { kind: 'method', name: '/healthz', allow: ['GET'] }, 'HEAD is not implied by GET');
  t.same(router.match('get', '/healthz'), { kind: 'method', name: '/healthz', allow: ['GET'] }, 'methods are case-sensitive (readHead upper-cases)');
  t.same(router.match('', '/healthz'), { kind: 'method', name: '/healthz', allow: ['GET'] }, 'empty method');
});

t.test('the first matching route wins: a literal segment shadows a parameter', async (t) => {
  // "upload" is not a dataset id: GET on it is 405, never a lookup of dataset "upload".
  t.same(router.match('GET', '/api/v1/risk/datasets/upload'), { kind: 'method', name: '/api/v1/risk/datasets/upload', allow: ['POST'] });
  t.equal(found(router.match('POST', '/api/v1/risk/datasets/upload')).handler, upload);
  const later = new Router().add('/a/:x', { GET: getDs }).add('/a/b', { GET: health });
  t.equal(found(later.match('GET', '/a/b')).handler, getDs, 'registration order, not specificity');
});

t.test('unknown paths are none', async (t) => {
  for (const p of [
    '',
    '/',
    '/health',
    '/healthzz',
    '/x/healthz',
    '/api/v1/risk',
    '/api/v1/risk/datasets',
    '/api/v1/books/b1/legs',
    '/api/v1/books/b1/legs/7/8',
  ]) {
    t.same(router.match('GET', p), { kind: 'none' }, JSON.stringify(p));
  }
  t.same(new Router().match('GET', '/'), { kind: 'none' }, 'an empty router matches nothing');
});

t.test('trailing slashes, empty segments and query strings are not folded', async (t) => {
  t.same(router.match('GET', '/healthz/'), { kind: 'none' });
  t.same(router.match('GET', '/api/v1/risk/datasets/'), { kind: 'none' }, 'a parameter cannot be empty');
  t.same(router.match('GET', '/api/v1/risk/datasets/ds_1/'), { kind: 'none' });
  t.same(router.match('GET', '/api/v1/risk/datasets//'), { kind: 'none' });
  t.same(router.match('GET', '//healthz'), { kind: 'none' });
  t.same(router.match('GET', '/HEALTHZ'), { kind: 'none' }, 'paths are case-sensitive');
  t.same(router.match('GET', '/healthz?x=1'), { kind: 'none' }, 'the caller strips the query (uWS getUrl does)');
});

t.test('encoded segments stay encoded and cannot add a segment', async (t) => {
  t.same(found(router.match('GET', '/api/v1/risk/datasets/a%2Fb')).params, { id: 'a%2Fb' }, '%2F is not a separator');
  t.same(found(router.match('GET', '/api/v1/risk/datasets/%20')).params, { id: '%20' });
  t.same(found(router.match('GET', '/api/v1/risk/datasets/..')).params, { id: '..' }, 'dot segments are not resolved');
  t.same(found(router.match('GET', '/api/v1/risk/datasets/ü')).params, { id: 'ü' });
  t.same(router.match('GET', '/api/v1/risk/datasets/a/b'), { kind: 'none' }, 'a raw slash ends the segment');
  t.same(router.match('GET', '/healthz%2F'), { kind: 'none' });
});

t.test('handlers on the prototype are not methods', async (t) => {
  // A method named like an Object.prototype member must not find a "handler" (readHead upper-cases
  // methods, which keeps real requests clear of these names; the router itself does not guard).
  t.not(router.match('toString', '/healthz').kind, 'found', 'toString');
  t.not(router.match('constructor', '/healthz').kind, 'found', 'constructor');
  t.equal(router.match('TOSTRING', '/healthz').kind, 'method', 'upper-cased, it is an ordinary wrong method');
});

t.test('a dot in a route path is literal', async (t) => {
  t.equal(found(router.match('GET', '/api/v1/openapi.json')).name, '/api/v1/openapi.json');
  // Found by this test: route paths were compiled as regular expressions without escaping.
  t.same(router.match('GET', '/api/v1/openapiXjson'), { kind: 'none' }, 'any character for the dot');
});

t.test('add returns the router for chaining and later routes are reachable', async (t) => {
  const r = new Router();
  t.equal(r.add('/a', { GET: health }), r);
  r.add('/b', { POST: upload });
  t.equal(found(r.match('POST', '/b')).handler, upload);
  t.same(r.match('GET', '/b'), { kind: 'method', name: '/b', allow: ['POST'] });
});
