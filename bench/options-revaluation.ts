// `node dist/bench/options-revaluation.js`: full revaluation of European options against NumPy/SciPy
// alone (bench/lib/options-bench.ts; `npm run bench` reports it too). Sizes: BENCH_OPTIONS,
// BENCH_UNDERLYINGS, BENCH_SCENARIOS, BENCH_REPEATS; ENGINE=wasm for the WASM simd128 build.
import { instantiateEngine, resolveEngineSource } from '../src/engine/load.js';
import { benchOptionRevaluation } from './lib/options-bench.js';
import { benchOptionRequest } from './lib/option-request-bench.js';

const engine = instantiateEngine(resolveEngineSource(process.env.ENGINE === 'wasm' ? 'wasm' : 'native'));
const f = benchOptionRevaluation(
  engine,
  Number(process.env.BENCH_OPTIONS ?? 1000),
  Number(process.env.BENCH_UNDERLYINGS ?? 100),
  Number(process.env.BENCH_SCENARIOS ?? 100_000),
  Number(process.env.BENCH_REPEATS ?? 3),
);
console.log(`${f.options} options on ${f.underlyings} underlyings × ${f.scenarios.toLocaleString('en-US')} scenarios, full revaluation, one core`);
console.log(`engine (${f.build}) ${f.engine_ms.toFixed(1)} ms, ${f.engine_ns_per_option_scenario.toFixed(1)} ns per option-scenario`);
console.log(
  `one book of them priced on kept scenarios (OP_SIMULATE_OPTIONS: P&L, tails, worst rows) ${f.book_ms.toFixed(1)} ms, ${f.book_ns_per_option_scenario.toFixed(1)} ns per option-scenario`,
);
// A request holds at most 500 option positions, each priced as asked and at its delta.
const q = benchOptionRequest(engine, Math.min(500, f.options), f.underlyings, f.scenarios, Number(process.env.BENCH_REPEATS ?? 3));
console.log(
  `a request's ${q.options} options, each as asked and at delta, two books (the nonlinearity): ${q.request_ms.toFixed(1)} ms, ${q.request_ns_per_option_scenario.toFixed(1)} ns per option position-scenario`,
);
console.log(`NumPy/SciPy (ndtr) ${f.numpy_ms.toFixed(1)} ms, ${f.numpy_ns_per_option_scenario.toFixed(1)} ns per option-scenario`);
console.log(
  `NumPy / engine: written out ${f.numpy_over_engine.toFixed(2)}; the book priced as a calculate prices it ${f.numpy_over_book.toFixed(2)} (target ≥ 3)`,
);
