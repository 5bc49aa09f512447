// One source for the ABI: every constant the TypeScript binding uses has the same name and value as
// in Rust. Each build reports its constants (OP_ABI); the binding refuses an engine that differs.
import t from 'tap';
import { ABI } from '../../src/engine/abi.js';
import { OPTION_BOUNDS } from '../../src/contract/option-schemas.js';
import { AbiMismatchError, readAbi, reportedConstants } from '../../src/engine/abi-check.js';
import { NativeEngine } from '../../src/engine/native-engine.js';
import { type Engine } from '../../src/engine/ops.js';
import { compileWasm, WasmEngine } from '../../src/engine/wasm-engine.js';

const builds: [string, () => Engine][] = [
  ['wasm-simd128', () => new WasmEngine(compileWasm('simd'), 'wasm-simd128')],
  ['wasm-scalar', () => new WasmEngine(compileWasm('scalar'), 'wasm-scalar')],
  ['wasm-simd128 with bench-ops', () => new WasmEngine(compileWasm('simd-bench'), 'wasm-simd128')],
  ['native', () => new NativeEngine()],
  ['native x86-64', () => NativeEngine.baseline()],
];

t.test('every build reports exactly the binding constants, and its version', async (t) => {
  for (const [name, make] of builds) {
    const engine = make();
    const reported = reportedConstants(engine);
    for (const [key, value] of Object.entries(ABI)) t.equal(reported.get(key), value, `${name}: ${key}`);
    t.same([...reported.keys()].filter((k) => !(k in ABI)), ['VERSION_MAJOR', 'VERSION_MINOR', 'VERSION_PATCH'], `${name}: nothing else but the version`);
    t.match(readAbi(engine).version, /^\d+\.\d+\.\d+$/, `${name}: version from the build`);
  }
});

t.test('the benchmark operation exists only in the bench-ops builds', async (t) => {
  const normals = (e: Engine) => e.call(ABI.OP_NORMALS, new Float64Array([1, 1000]))[0];
  t.equal(normals(new WasmEngine(compileWasm('simd'), 'wasm-simd128')), ABI.ERR_INVALID_INPUT, 'the served WASM: unknown operation');
  t.equal(normals(new NativeEngine()), ABI.ERR_INVALID_INPUT, 'the served native addon: unknown operation');
  t.equal(normals(new WasmEngine(compileWasm('simd-bench'), 'wasm-simd128')), 0, 'the bench WASM draws normals');
  t.equal(normals(NativeEngine.baseline()), 0, 'the native baseline (a benchmark build) draws normals');
});

/** An engine that answers OP_ABI with a doctored table. */
function doctored(change: (table: Map<string, number>) => void): Pick<Engine, 'call'> {
  const real = new WasmEngine(compileWasm('simd'), 'wasm-simd128');
  const table = reportedConstants(real);
  change(table);
  const out: number[] = [0, table.size];
  for (const [name, value] of table) out.push(name.length, ...Array.from(name, (c) => c.charCodeAt(0)), value);
  return { call: (op, input) => (op === ABI.OP_ABI ? Float64Array.from(out) : real.call(op, input)) };
}

t.test('a drifted engine is refused, naming what differs', async (t) => {
  t.throws(() => readAbi(doctored((m) => m.set('BLOCK', 512))), new AbiMismatchError('engine ABI differs from the binding: BLOCK: binding 256, engine 512'));
  t.throws(() => readAbi(doctored((m) => m.delete('ERR_DEADLINE_EXCEEDED'))), /ERR_DEADLINE_EXCEEDED: binding 4, engine missing/);
  t.throws(() => readAbi(doctored((m) => m.set('OP_SOMETHING_NEW', 8))), /OP_SOMETHING_NEW: unknown to the binding/);
  const silent: Pick<Engine, 'call'> = { call: () => Float64Array.of(1, 0, 0) };
  t.throws(() => readAbi(silent), /does not answer OP_ABI/, 'an engine from before OP_ABI');
});

t.test('the contract’s option bounds are the engine’s', async (t) => {
  // The contract is a leaf and cannot read ABI: the two copies are held equal here.
  t.equal(OPTION_BOUNDS.minVolatility, ABI.MIN_VOLATILITY, 'least volatility');
  t.equal(OPTION_BOUNDS.maxVolatility, ABI.MAX_VOLATILITY, 'most volatility');
});
