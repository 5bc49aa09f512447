// Work splitting: batches must tile the blocks exactly (a gap or an overlap would change the
// result), stay near-equal, respect maxBatches and minBlocks, for any scenario count.
import t, { type Test } from 'tap';
import { ABI } from '../../src/engine/abi.js';

const BLOCK = ABI.BLOCK;
import { MIN_BLOCKS_PER_BATCH, blockCount, minBlocksFor, planBatches, type Batch } from '../../src/risk/plan.js';
import { workUnits } from '../../src/risk/work-cost.js';
import { mulberry32 } from '../helpers/mulberry32.js';

/** Every invariant of a plan, checked once per call and reported as a single assertion on failure. */
function violations(scenarios: number, maxBatches: number, minBlocks: number, plan: Batch[]): string[] {
  const out: string[] = [];
  const blocks = blockCount(scenarios);
  if (plan.length < 1) out.push('no batch');
  if (plan.length > Math.max(1, maxBatches)) out.push(`${plan.length} batches > max ${maxBatches}`);
  if (plan[0]?.first !== 0) out.push('does not start at block 0');
  if (plan[plan.length - 1]?.end !== blocks) out.push(`does not end at block ${blocks}`);
  for (let i = 0; i < plan.length; i++) {
    const b = plan[i]!;
    if (!Number.isInteger(b.first) || !Number.isInteger(b.end)) out.push(`batch ${i} has fractional bounds`);
    if (blocks > 0 && b.end <= b.first) out.push(`batch ${i} is empty`);
    if (i > 0 && plan[i - 1]!.end !== b.first) out.push(`gap or overlap before batch ${i}`);
  }
  const sizes = plan.map((b) => b.end - b.first);
  if (Math.max(...sizes) - Math.min(...sizes) > 1) out.push(`sizes differ by more than one: ${Math.min(...sizes)}..${Math.max(...sizes)}`);
  // Below minBlocks in total there is one batch; otherwise no batch may be smaller than minBlocks.
  if (blocks >= minBlocks && Math.min(...sizes) < Math.max(1, minBlocks)) out.push(`a batch is below minBlocks ${minBlocks}`);
  if (blocks < Math.max(1, minBlocks) * 2 && plan.length !== 1) out.push('split although two batches would be below minBlocks');
  return out;
}

function check(t: Test, scenarios: number, maxBatches: number, minBlocks = MIN_BLOCKS_PER_BATCH): Batch[] {
  const plan = planBatches(scenarios, maxBatches, minBlocks);
  t.same(violations(scenarios, maxBatches, minBlocks, plan), [], `planBatches(${scenarios}, ${maxBatches}, ${minBlocks})`);
  return plan;
}

t.test('blockCount rounds up to whole blocks of BLOCK simulations', async (t) => {
  t.equal(BLOCK, 256, 'the ABI block size these cases assume');
  t.equal(blockCount(0), 0);
  t.equal(blockCount(1), 1, 'one scenario still needs a block');
  t.equal(blockCount(255), 1);
  t.equal(blockCount(256), 1, 'exactly one block');
  t.equal(blockCount(257), 2, 'one over spills into a second block');
  t.equal(blockCount(512), 2);
  t.equal(blockCount(10_000_000), 39_063);
  t.equal(blockCount(Number.MAX_SAFE_INTEGER), Math.ceil(Number.MAX_SAFE_INTEGER / 256));
});

t.test('small counts give a single batch covering every block', async (t) => {
  t.same(planBatches(1, 8), [{ first: 0, end: 1 }], 'one scenario');
  t.same(planBatches(256, 8), [{ first: 0, end: 1 }], 'exactly one block');
  t.same(planBatches(257, 8), [{ first: 0, end: 2 }], 'two blocks, still below minBlocks');
  t.same(planBatches(257, 8, 1), [
    { first: 0, end: 1 },
    { first: 1, end: 2 },
  ]);
  t.same(planBatches(100, 1), [{ first: 0, end: 1 }], 'maxBatches 1');
});

t.test('minBlocks decides when splitting starts', async (t) => {
  const per = MIN_BLOCKS_PER_BATCH * BLOCK;
  t.equal(planBatches(2 * per - BLOCK, 64).length, 1, 'one block short of two full batches');
  t.equal(planBatches(2 * per - 1, 64).length, 2, 'one simulation short still rounds up to the full block');
  t.equal(planBatches(2 * per, 64).length, 2, 'exactly two batches of minBlocks');
  t.same(planBatches(2 * per, 64), [
    { first: 0, end: MIN_BLOCKS_PER_BATCH },
    { first: MIN_BLOCKS_PER_BATCH, end: 2 * MIN_BLOCKS_PER_BATCH },
  ]);
  t.equal(planBatches(3 * per - BLOCK, 64).length, 2, 'remainder joins the existing batches');
  t.equal(planBatches(3 * per, 64).length, 3);
  t.equal(planBatches(100 * per, 64).length, 64, 'capped by maxBatches');
  t.equal(planBatches(100 * per, 64, 0).length, 64, 'minBlocks 0 behaves as 1');
  t.equal(planBatches(10 * BLOCK, 64, 0).length, 10, 'never more batches than blocks');
  t.equal(planBatches(10 * BLOCK, 64, -5).length, 10, 'negative minBlocks behaves as 1');
  t.equal(planBatches(10 * BLOCK, 64, 1000).length, 1, 'minBlocks above the total gives one batch');
});

t.test('sizes are near-equal and ordered', async (t) => {
  const plan = check(t, 10 * BLOCK, 3, 1);
  t.same(
    plan.map((b) => b.end - b.first),
    [3, 3, 4],
    '10 blocks in 3 batches',
  );
  const seven = check(t, 7 * BLOCK, 7, 1);
  t.ok(
    seven.every((b, i) => b.first === i && b.end === i + 1),
    'one block each when maxBatches equals blocks',
  );
  check(t, 7 * BLOCK, 1000, 1);
  t.equal(planBatches(7 * BLOCK, 1000, 1).length, 7, 'maxBatches above blocks gives one batch per block');
});

t.test('maxBatches below one still yields one batch', async (t) => {
  t.same(planBatches(1_000_000, 0), [{ first: 0, end: blockCount(1_000_000) }]);
  t.same(planBatches(1_000_000, -3), [{ first: 0, end: blockCount(1_000_000) }]);
});

t.test('non-integer or NaN maxBatches still tile every block', async (t) => {
  // Found by this test: the count was not floored, so 2.5 left the last blocks out and NaN gave [].
  check(t, 10 * BLOCK, 2.5, 1);
  check(t, 10 * BLOCK, NaN, 1);
  check(t, 10 * BLOCK, 3.0, 1);
});

t.test('zero scenarios give one empty batch', async (t) => {
  // Callers never ask for 0 (the schema's minimum is 100); the plan stays well formed regardless.
  t.same(planBatches(0, 8), [{ first: 0, end: 0 }]);
});

t.test('huge counts keep exact integer bounds', async (t) => {
  check(t, 10_000_000, 64);
  check(t, 1_000_000_000, 1024);
  check(t, 2 ** 40, 4096);
  const plan = check(t, Number.MAX_SAFE_INTEGER, 256);
  t.equal(plan.length, 256);
  t.equal(plan[255]!.end, blockCount(Number.MAX_SAFE_INTEGER));
});

t.test('property: every (scenarios, maxBatches, minBlocks) triple gives a valid tiling', async (t) => {
  const rand = mulberry32(0x5eed);
  const failures: string[] = [];
  const scenarioEdges = [1, 255, 256, 257, 511, 512, 513, 65_535, 65_536, 65_537, 131_072, 10_000_000];
  const cases: [number, number, number][] = [];
  for (const s of scenarioEdges) for (const m of [1, 2, 3, 7, 64]) for (const b of [0, 1, 2, 255, 256, 257]) cases.push([s, m, b]);
  for (let i = 0; i < 3000; i++) {
    const s = 1 + Math.floor(rand() ** 3 * 50_000_000);
    const m = 1 + Math.floor(rand() * 128);
    const b = Math.floor(rand() * 600);
    cases.push([s, m, b]);
  }
  for (const [s, m, b] of cases) {
    const v = violations(s, m, b, planBatches(s, m, b));
    if (v.length) failures.push(`(${s}, ${m}, ${b}): ${v.join('; ')}`);
    // The count must be the largest allowed: as many batches as the limits permit, no fewer.
    const blocks = blockCount(s);
    const expected = Math.max(1, Math.min(m, Math.floor(blocks / Math.max(1, b)), blocks));
    if (planBatches(s, m, b).length !== expected) failures.push(`(${s}, ${m}, ${b}): count ${planBatches(s, m, b).length} != ${expected}`);
  }
  t.same(failures.slice(0, 10), [], `${cases.length} cases`);
});

t.test('the fewest blocks per batch follow the work of a scenario', async (t) => {
  const small = workUnits({ scenarios: 1, assets: 10, books: 1, steps: 1, correlated: true, window: 1_000, confidence: 0.99 });
  t.equal(minBlocksFor(small), MIN_BLOCKS_PER_BATCH, 'the reference book: 64k simulations a task');
  t.equal(minBlocksFor(small / 100), MIN_BLOCKS_PER_BATCH, 'never more blocks than that');
  t.equal(minBlocksFor(small * 4), MIN_BLOCKS_PER_BATCH / 4, 'four times the work: a quarter of the blocks');
  const wide = workUnits({ scenarios: 1, assets: 461, books: 1, steps: 1, correlated: true, window: 1_259, confidence: 0.99 });
  t.equal(minBlocksFor(wide), 1, '461 assets: every block is worth a task');
  for (const units of [0, 1e-300, Number.MIN_VALUE, 1, 2 ** 31, 2 ** 53 - 1, Number.MAX_VALUE]) {
    const blocks = minBlocksFor(units);
    t.ok(Number.isInteger(blocks) && blocks >= 1 && blocks <= MIN_BLOCKS_PER_BATCH, `${units} units: ${blocks} blocks`);
  }
});
