// A WASM memory never shrinks: after a call that grew it beyond the engine's release threshold, the
// instance is replaced, so the worker does not pin a large task's peak (review M6). The answers are
// the same before and after a renewal, and the renewed engine keeps answering.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { compileWasm, RELEASE_ABOVE_BYTES, WasmEngine } from '../../src/engine/wasm-engine.js';
import { decodeWorstWindow, encodeWorstWindow } from '../../src/engine/stress-codec.js';

const MIB = 1024 * 1024;

/** A worst-window search over `rows` price rows of 4 assets: about 64 B of input per row. */
function search(rows: number): Float64Array {
  const prices = Float64Array.from({ length: rows * 4 }, (_, k) => 100 + ((k * 7919) % 1000) / 100);
  return encodeWorstWindow({ exposures: new Float64Array([1e6, -5e5, 2e5, 3e5]), prices, horizons: [1, 10] });
}

t.test('a call that grows memory past the threshold leaves a fresh instance behind', async (t) => {
  const module = compileWasm('simd');
  const threshold = 128 * MIB;
  const renewing = new WasmEngine(module, 'wasm-simd128', threshold);
  const keeping = new WasmEngine(module, 'wasm-simd128');
  t.ok(RELEASE_ABOVE_BYTES > threshold, 'the default threshold is higher than this test’s');
  const small = search(1000);
  const large = search(2_500_000); // 80 MB of prices, read and copied: past 128 MiB
  const expected = decodeWorstWindow(keeping.call(ABI.OP_WORST_WINDOW, large));
  t.ok(keeping.memoryBytes > threshold, `without renewal the memory stays grown (${keeping.memoryBytes / MIB} MiB)`);
  t.same(decodeWorstWindow(renewing.call(ABI.OP_WORST_WINDOW, large)), expected, 'the same answer from the engine that renews');
  t.ok(renewing.memoryBytes <= threshold, `renewed: ${renewing.memoryBytes / MIB} MiB`);
  t.same(
    decodeWorstWindow(renewing.call(ABI.OP_WORST_WINDOW, small)),
    decodeWorstWindow(keeping.call(ABI.OP_WORST_WINDOW, small)),
    'and the fresh instance answers as the old one',
  );
});
