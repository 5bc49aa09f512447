// Correctly rounded sums of a book's amounts (api.md §13): the same double whatever the order of
// the terms or their split into parts that add up exactly. The case is the property test's
// (seed 1795664950): two JPY cash holdings, one split in halves and listed apart, gave exposures
// 1.054219558909966e-229 and 1.0542195589099662e-229 when added left to right.
import t from 'tap';
import { exactSum } from '../../src/risk/exact-sum.js';

t.test('order and exact splits do not move the sum', async (t) => {
  const [a, b] = [-3.6024363604481177e-230, 1.156079247327634e-227];
  const [b1, b2] = [b / 2, b - b / 2];
  t.equal(b1 + b2, b, 'the halves add up exactly');
  t.not(b1 + a + b2, a + b, 'left to right, the split moves the last bit');
  for (const order of [
    [a, b1, b2],
    [b1, a, b2],
    [b2, b1, a],
    [b1, b2, a],
  ])
    t.equal(exactSum(order), a + b, JSON.stringify(order));
  t.equal(exactSum([0.1, 0.2, 0.3]), 0.6, 'correctly rounded, not 0.6000000000000001');
  t.equal(exactSum([1e15, 1, -1e15]), 1);
  t.equal(exactSum([]), 0);
  t.ok(Object.is(exactSum([-0]), -0) && Object.is(exactSum([0, -0]), 0), 'signed zeros as a + b gives them');
  t.equal(exactSum([7, -2.5]), 7 + -2.5, 'two terms: a + b itself');
});
