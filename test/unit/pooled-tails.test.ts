// Pooled kept tails (risk/pooled-tails.ts): one batch ends up holding, per asset and lane, the k-th
// smallest tail value of all batches alone (−0 ranked before +0, as the engine's order keys rank
// them), the one finalize takes (a ranked lead: k kept, one value per asset and lane); the others
// keep their units and no tail; nothing is pooled where no batch tells k (all smaller than the tail).
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { type KeptScenarios } from '../../src/risk/kept-scenarios.js';
import { poolTails } from '../../src/risk/pooled-tails.js';
import { mulberry32 } from '../helpers/mulberry32.js';

const B = ABI.BLOCK;

/** A batch's OP_UNITS answer: [count, units(count), n, k, smallest(n·k), largest(n·k)]. */
function batch(blocks: number, n: number, lanes: number[][][]): Float64Array {
  const count = blocks * n * B;
  const k = lanes[0]![0]!.length;
  const out = new Float64Array(3 + count + 2 * n * k);
  out[0] = count;
  for (let i = 0; i < count; i++) out[1 + i] = i / count - 0.5;
  out[1 + count] = n;
  out[2 + count] = k;
  lanes.flat().forEach((tail, j) => out.set(tail, 3 + count + j * k));
  return out;
}

function kept(parts: Float64Array[], blocks: number[]): KeptScenarios {
  let first = 0;
  const batches = blocks.map((b) => ({ first, end: (first += b) }));
  const units = parts.map((p) => {
    const shared = new Float64Array(new SharedArrayBuffer(p.byteLength));
    shared.set(p);
    return shared;
  });
  return { batches, units, bytes: units.reduce((a, u) => a + u.byteLength, 0) };
}

const kthSmallest = (xs: number[], k: number) => [...xs].sort((a, b) => a - b || (Object.is(a, -0) ? -1 : Object.is(b, -0) ? 1 : 0))[k - 1]!;

t.test('one batch holds every asset’s k-th smallest of all batches; the others none', async (t) => {
  const rand = mulberry32(18);
  const n = 3;
  const k = 40;
  const blocks = [1, 2, 1];
  const draw = () => Array.from({ length: k }, () => (rand() < 0.1 ? (rand() < 0.5 ? -0 : 0) : Math.round((rand() - 0.5) * 20) / 10));
  const lanes = blocks.map(() => [0, 1].map(() => Array.from({ length: n }, draw)));
  const scenarios = 4 * B - 7;
  const pooled = poolTails(
    kept(
      lanes.map((l, b) => batch(blocks[b]!, n, l)),
      blocks,
    ),
    scenarios,
  );
  const owner = pooled.units[0]!;
  const count = owner[0]!;
  t.equal(owner[2 + count], k, 'the first batch keeps its k');
  t.equal(owner.length, 3 + count + 2 * n, 'and nothing after them');
  for (let lane = 0; lane < 2; lane++) {
    for (let i = 0; i < n; i++) {
      const all = lanes.flatMap((l) => l[lane]![i]!);
      t.ok(Object.is(owner[3 + count + lane * n + i], kthSmallest(all, k)), `lane ${lane} asset ${i}: the union's k-th smallest`);
    }
  }
  for (const u of pooled.units.slice(1)) {
    const c = u[0]!;
    t.equal(u.length, 3 + c, 'no tail values');
    t.equal(u[2 + c], 0, 'k = 0: pooled elsewhere');
    t.equal(u[1 + c], n, 'every asset covered');
  }
  t.equal(
    pooled.bytes,
    kept(
      lanes.map((l, b) => batch(blocks[b]!, n, l)),
      blocks,
    ).bytes,
    'the memory held is unchanged',
  );
});

t.test('a k-th among tied zeros is −0 or +0 as the engine ranks them (−0 first)', async (t) => {
  // Lane 0: −1, −0, −0, +0, +0, 5 (the 3rd is −0); lane 1: −1, −0, +0, +0, 5, 7 (the 3rd is +0).
  const pooled = poolTails(kept([batch(1, 1, [[[-1, -0, 0]], [[-1, 0, 7]]]), batch(1, 1, [[[0, -0, 5]], [[0, -0, 5]]])], [1, 1]), 2 * B);
  const owner = pooled.units[0]!;
  const count = owner[0]!;
  t.equal(owner[2 + count], 3, 'k kept');
  t.ok(Object.is(owner[3 + count], -0), 'lane 0: −0');
  t.ok(Object.is(owner[4 + count], 0), 'lane 1: +0');
});

t.test('nothing is pooled with one batch, or when no batch holds fewer values than scenarios', async (t) => {
  const one = kept(
    [
      batch(1, 2, [
        [[1], [2]],
        [[3], [4]],
      ]),
    ],
    [1],
  );
  t.equal(poolTails(one, 100), one);
  // Every scenario of each batch in its tail: k could be anything up to both batches' count.
  const whole = Array.from({ length: B }, (_, i) => i);
  const small = kept([batch(1, 1, [[whole], [whole]]), batch(1, 1, [[whole], [whole]])], [1, 1]);
  t.equal(poolTails(small, 2 * B), small);
});
