// The OpenAPI document as client generators and people read it: enums as `enum`, every operation
// summarised, described and tagged, every property described, examples that the service's own
// validators accept, and the headers each status carries.
import t from 'tap';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { serviceOpenApi } from '../../src/contract/openapi.js';
import { CalculateResponse, BatchResponse } from '../../src/contract/responses.js';
import { DatasetResponse, DeletedResponse, UploadResponse } from '../../src/contract/dataset-schemas.js';
import { DatasetListResponse } from '../../src/contract/dataset-list-schemas.js';
import { StressRequest, StressResponse } from '../../src/contract/stress-schemas.js';
import { BacktestResponse, backtestRequestSchema } from '../../src/contract/backtest-schemas.js';
import { batchRequestSchema, calculateRequestSchema } from '../../src/contract/schemas.js';
import { checkBacktestRequest, checkBatchRequest, checkRequest } from '../../src/risk/request-checks.js';
import { compileValidator } from '../../src/http/validator.js';
import examples from '../../src/contract/examples.json' with { type: 'json' };

// The service never validates its own responses, so the formats they use are registered here.
FormatRegistry.Set('date', (v) => /^\d{4}-\d{2}-\d{2}$/.test(v));
FormatRegistry.Set('date-time', (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v));

type Node = Record<string, unknown>;
const doc = JSON.parse(serviceOpenApi(10_000_000, 'test')) as { paths: Record<string, Record<string, Node>>; components: { schemas: Record<string, Node> } };
const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ where: `${method} ${path}`, op })));

function* nodes(node: unknown, at: string): Generator<{ node: Node; at: string }> {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return yield* node.flatMap((n, i) => [...nodes(n, `${at}[${i}]`)]);
  yield { node: node as Node, at };
  for (const [k, v] of Object.entries(node)) yield* nodes(v, `${at}.${k}`);
}

t.test('enums are `enum`, never anyOf of consts or a lone const', async (t) => {
  let enums = 0;
  for (const { node, at } of nodes(doc, '$')) {
    const anyOf = node.anyOf as Node[] | undefined;
    t.notOk(
      anyOf?.some((m) => 'const' in m),
      `${at}: no anyOf of consts`,
    );
    t.notOk('const' in node, `${at}: no const`);
    if (Array.isArray(node.enum)) enums++;
  }
  const method = (doc.components.schemas.CalculateRequest!.properties as Record<string, Node>).method!;
  t.same(
    method.enum,
    ['monte_carlo_normal', 'monte_carlo_student_t', 'historical', 'parametric_normal', 'historical_filtered', 'cornish_fisher'],
    'method lists its values',
  );
  t.equal(method.type, 'string');
  t.ok(enums > 20, `${enums} enums`);
});

t.test('every operation has an id, a summary, a description and one tag; the API ones their client errors', async (t) => {
  const tags = new Set(['datasets', 'risk', 'validation', 'operations']);
  t.ok(operations.length >= 11, `${operations.length} operations`);
  for (const { where, op } of operations) {
    t.match(op.operationId, /^[a-z][A-Za-z]+$/, `${where}: operationId`);
    t.ok(typeof op.summary === 'string' && op.summary.length > 5 && op.summary.length <= 60, `${where}: a short summary`);
    t.ok(typeof op.description === 'string' && (op.description as string).length > 20, `${where}: a description`);
    t.ok((op.tags as string[]).length === 1 && tags.has((op.tags as string[])[0]!), `${where}: one known tag`);
    const statuses = Object.keys(op.responses as Node);
    if ((op.tags as string[])[0] !== 'operations')
      t.ok(
        statuses.some((s) => s.startsWith('4')),
        `${where}: declares its 4xx`,
      );
  }
});

t.test('every property of every schema is described', async (t) => {
  let count = 0;
  for (const { node, at } of nodes(doc.components.schemas, 'schemas')) {
    for (const [name, prop] of Object.entries((node.properties as Record<string, Node> | undefined) ?? {})) {
      count++;
      t.ok(typeof prop.description === 'string' && prop.description.length > 0, `${at}.${name}`);
    }
  }
  t.ok(count > 400, `${count} properties`);
});

t.test('headers: X-Request-Id on every response, RateLimit on limited 200s, Retry-After on 429 and 503', async (t) => {
  for (const { where, op } of operations) {
    for (const [status, response] of Object.entries(op.responses as Record<string, Node>)) {
      // The live route's WebSocket handshake: uWS answers it, with no body and none of the service's headers.
      if (status === '101') continue;
      const headers = Object.keys((response.headers as Node | undefined) ?? {});
      t.ok(headers.includes('X-Request-Id'), `${where} ${status}: X-Request-Id`);
      if (status === '429')
        t.ok(
          ['Retry-After', 'RateLimit', 'RateLimit-Policy'].every((h) => headers.includes(h)),
          `${where} 429: Retry-After and RateLimit`,
        );
      if (status === '503') t.ok(headers.includes('Retry-After'), `${where} 503: Retry-After`);
      // The address gate's 429 (failed authentications) knows no key's bucket.
      if (status === '429') t.equal((response.headers as Record<string, Node>).RateLimit!.required, false, `${where} 429: RateLimit not always sent`);
    }
  }
  const upload = doc.paths['/api/v1/risk/datasets/upload']!.post!.responses as Record<string, Node>;
  t.ok('RateLimit' in (upload['200']!.headers as Node), 'a limited endpoint’s 200 carries RateLimit');
  const components = doc.components as unknown as { headers: Record<string, Node>; responses: Record<string, Node> };
  for (const name of ['X-Request-Id', 'Cache-Control', 'X-Content-Type-Options', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Allow'])
    t.equal(components.headers[name]?.required, true, `${name}: declared, required where referenced (the HTTP tests check it is sent)`);
  t.same(
    Object.keys(components.responses.MethodNotAllowed!.headers as Node).sort(),
    ['Allow', 'Cache-Control', 'X-Content-Type-Options', 'X-Request-Id'],
    '405 (a method the path does not answer) carries Allow, and what every answer carries',
  );
  t.ok('X-Request-Id' in (components.responses.NotFound!.headers as Node), '404 (an unknown path) carries X-Request-Id');
});

t.test('every response of every operation, errors included, has an example of its body', async (t) => {
  const components = doc.components as unknown as { responses: Record<string, Node> };
  const responses = [
    ...operations.flatMap(({ where, op }) => Object.entries(op.responses as Record<string, Node>).map(([status, r]) => ({ where: `${where} ${status}`, r }))),
    ...Object.entries(components.responses).map(([name, r]) => ({ where: `components.responses.${name}`, r })),
  ];
  for (const { where, r } of responses) {
    if (where.endsWith(' 101')) continue;
    for (const [media, content] of Object.entries(r.content as Record<string, Node>)) {
      if (media === 'application/json' && (content.schema as Node).$ref === '#/components/schemas/Error') {
        const example = content.example as { detail: { code: string; request_id: string } };
        t.match(example.detail, { code: /^[A-Z_]+$/, request_id: /^req_\w+$/ }, `${where}: an error example as the service answers it`);
        t.ok((r.description as string).includes(example.detail.code), `${where}: its example's code is one the response lists`);
      } else t.ok(content.example !== undefined, `${where} ${media}: an example`);
    }
  }
});

t.test('every component schema and header is referenced (redocly.yaml leaves only the routing responses unreferenced)', async (t) => {
  const text = JSON.stringify(doc.paths) + JSON.stringify((doc.components as unknown as { responses: unknown }).responses);
  const components = doc.components as unknown as { schemas: Node; headers: Node };
  for (const kind of ['schemas', 'headers'] as const)
    for (const name of Object.keys(components[kind])) t.ok(text.includes(`"#/components/${kind}/${name}"`), `${kind}/${name} is used`);
});

t.test('dates carry format date; nullable fields say so', async (t) => {
  const s = doc.components.schemas as Record<string, Node>;
  const props = (n: Node) => n.properties as Record<string, Node>;
  const summary = props(props(s.DatasetResponse!).dataset!);
  t.equal(summary.first_date!.format, 'date', 'dataset.first_date');
  const estimation = props(props(props(s.CalculateResponse!).meta!).estimation!);
  t.equal(estimation.last_date!.format, 'date', 'meta.estimation.last_date');
  t.equal(props(props(s.StressResponse!).meta!).as_of!.format, 'date', 'stress meta.as_of');
  const seed = props(props(s.CalculateResponse!).meta!).seed!;
  t.same((seed.anyOf as Node[]).map((m) => m.type).sort(), ['integer', 'null'], 'meta.seed: integer or null');
  t.same(props(s.DatasetListResponse!).next_cursor!.anyOf, [{ type: 'string' }, { type: 'null' }], 'next_cursor: string or null');
});

t.test('examples: requests pass the service’s own checks, responses match their schemas', async (t) => {
  const requests = examples.requests;
  t.doesNotThrow(() => checkRequest(compileValidator(calculateRequestSchema(10_000_000))(requests.calculate)), 'calculate request');
  t.doesNotThrow(() => checkBatchRequest(compileValidator(batchRequestSchema(10_000_000))(requests.batch)), 'batch request');
  t.doesNotThrow(() => compileValidator(StressRequest)(requests.stress), 'stress request');
  t.doesNotThrow(() => checkBacktestRequest(compileValidator(backtestRequestSchema(10_000_000))(requests.backtest)), 'backtest request');
  const r = examples.responses;
  const pairs = [
    ['calculate', CalculateResponse, r.calculate],
    ['batch', BatchResponse, r.batch],
    ['stress', StressResponse, r.stress],
    ['backtest', BacktestResponse, r.backtest],
    ['upload', UploadResponse, r.upload],
    ['dataset', DatasetResponse, r.dataset],
    ['deleted', DeletedResponse, r.deleted],
    ['list', DatasetListResponse, r.list],
  ] as const;
  for (const [name, schema, example] of pairs) t.ok(Value.Check(schema, example), `${name} response example matches its schema`);
  for (const { where, op } of operations) {
    // Every operation answers 200 but the live route, whose success is the WebSocket's 101.
    const responses = op.responses as Record<string, { content?: Record<string, Node> }>;
    t.ok(op.operationId === 'liveRisk' ? responses['101'] && !responses['200'] : responses['200'], `${where}: its success declared`);
    const ok = responses['200']?.content ?? {};
    if (ok['application/json'] && (op.tags as string[])[0] !== 'operations') t.ok(ok['application/json'].example, `${where}: a 200 example`);
  }
});

t.test('DELETE is documented as it answers', async (t) => {
  const del = doc.paths['/api/v1/risk/datasets/{id}']!.delete!.responses as Record<string, { content: Record<string, { schema: Node }> }>;
  t.same(del['200']!.content['application/json']!.schema, { $ref: '#/components/schemas/DeletedResponse' });
  t.same(Object.keys(doc.components.schemas.DeletedResponse!.properties as Node).sort(), ['dataset_id', 'status']);
});
