// The answers' serializers, compiled from the response schemas: each writes exactly what
// JSON.stringify would (key order aside) for the service's own example answers, numbers at their
// edges included, and writes nothing outside the schema. The property test checks the calculate
// serializer on every answer of the whole request domain.
import t from 'tap';
import { serializeBacktest, serializeBatch, serializeCalculate, serializerSchema, serializeStress } from '../../src/http/serializers.js';
import { type CalculateResponseBody } from '../../src/contract/responses.js';
import examples from '../../src/contract/examples.json' with { type: 'json' };
import { sameContent } from '../helpers/same-json.js';

type Loose = Parameters<typeof serializeCalculate>[0];
const r = examples.responses;

t.test('each serializer writes the content of its example answer', async (t) => {
  const cases = [
    ['calculate', serializeCalculate as (v: unknown) => string, r.calculate],
    ['batch', serializeBatch as (v: unknown) => string, r.batch],
    ['stress', serializeStress as (v: unknown) => string, r.stress],
    ['backtest', serializeBacktest as (v: unknown) => string, r.backtest],
  ] as const;
  for (const [name, serialize, example] of cases) {
    const text = serialize(example);
    t.ok(sameContent(text, example), `${name}: the same content as JSON.stringify`);
    t.equal(text.length, JSON.stringify(example).length, `${name}: the same length`);
  }
});

t.test('numbers at their edges are written as JSON.stringify writes them', async (t) => {
  const edges = [0, -0, 5e-324, -5e-324, 2 ** 31, 2 ** 32, 2 ** 53 - 1, -(2 ** 53 - 1), 1e21, 1.7976931348623157e308, -1.7976931348623157e308, 0.1 + 0.2];
  for (const x of edges) {
    const body = structuredClone(r.calculate) as unknown as CalculateResponseBody;
    body.meta.metrics.value_at_risk = x;
    body.meta.portfolio_value = x;
    body.meta.distribution.counts = [x];
    const text = serializeCalculate(body as Loose);
    t.ok(sameContent(text, body), `${x}`);
    t.equal(JSON.parse(text).meta.metrics.value_at_risk, JSON.parse(JSON.stringify(body)).meta.metrics.value_at_risk, `${x} reads back`);
  }
});

t.test('symbols holding line terminators or quotes keep their figures', async (t) => {
  const body = structuredClone(r.calculate) as unknown as CalculateResponseBody;
  const symbols = ['A\u2028B', 'A\u2029B', 'A\rB', 'A\nB', 'A"B', 'A\\B', '', 'Ü€😀'];
  body.meta.estimation.daily_mean = Object.fromEntries(symbols.map((s, i) => [s, i / 7]));
  body.meta.estimation.daily_volatility = Object.fromEntries(symbols.map((s, i) => [s, i / 3]));
  const text = serializeCalculate(body as Loose);
  t.ok(sameContent(text, body), 'the same content as JSON.stringify');
  t.same(Object.keys(JSON.parse(text).meta.estimation.daily_mean), symbols, 'every symbol written');
});

t.test('a property outside the schema is not written', async (t) => {
  const body = structuredClone(r.calculate) as unknown as CalculateResponseBody & { internal?: string };
  (body.meta as unknown as Record<string, unknown>).secret = 'not for clients';
  body.internal = 'nor this';
  const text = serializeCalculate(body as Loose);
  t.notMatch(text, /not for clients|nor this/);
});

t.test('a union of bare types becomes a list of types; other unions stay', async (t) => {
  const nullable = { description: 'a figure or null', anyOf: [{ type: 'number' }, { type: 'null' }] };
  t.same(serializerSchema(nullable), { description: 'a figure or null', type: ['number', 'null'] });
  const named = { anyOf: [{ type: 'string', enum: ['a', 'b'], description: 'a name' }, { type: 'null' }] };
  t.same(serializerSchema(named), { type: ['string', 'null'] });
  const objects = { anyOf: [{ type: 'object', properties: { x: { type: 'number' } } }, { type: 'null' }] };
  t.same(serializerSchema(objects), objects, 'an object branch keeps the anyOf');
  const constrained = { anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }] };
  t.same(serializerSchema(constrained), constrained, 'a branch with other keywords keeps the anyOf');
  t.same(serializerSchema({ anyOf: [{ type: 'number' }] }), { anyOf: [{ type: 'number' }] }, 'a single branch stays');
});

t.test('nullable figures: null and numbers written, anything else refused', async (t) => {
  const body = structuredClone(r.calculate) as unknown as CalculateResponseBody;
  const items = body.meta.exposures.items as unknown as Record<string, unknown>[];
  for (const quantity of [null, 0, -0, 2 ** 53 - 1, -1.5e-300, 150]) {
    items[0]!.quantity = quantity;
    const text = serializeCalculate(body as Loose);
    t.ok(sameContent(text, body), `quantity ${quantity}`);
  }
  items[0]!.quantity = '150';
  t.throws(() => serializeCalculate(body as Loose), /quantity/, 'a string where a number or null belongs');
  body.meta.simulations = 1.5 as unknown as number;
  items[0]!.quantity = 150;
  t.throws(() => serializeCalculate(body as Loose), /simulations/, 'a fraction where a whole number or null belongs');
});
