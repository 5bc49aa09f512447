// `node dist/bench/finalize-ab.js A.node B.node [ROUNDS] [SIMULATIONS]`: two builds of the native
// addon (copies of build/native/index.node made before and after a change to the merge) timed on
// the same OP_FINALIZE input in one process, alternating which goes first each round so drift on a
// shared machine falls on both. The input is W2 (20 assets × 10 d, 1M simulations unless given)
// simulated by A in the two own-share halves the service plans for two workers. Every answer must
// equal A's OP_RUN bit for bit: a change that moves a bit fails here before it is timed.
import { ABI } from '../src/engine/abi.js';
import { encodeFinalize } from '../src/engine/codec.js';
import { DirectExecutor } from '../src/engine/direct-executor.js';
import { NativeEngine } from '../src/engine/native-engine.js';
import { encodeSpec } from '../src/engine/spec-codec.js';
import { simulationSpec } from '../src/risk/engine-run.js';
import { blockCount, planBatches } from '../src/risk/plan.js';
import { median } from './lib/stats.js';
import { prepare, workloads } from './lib/workloads.js';

const [fileA, fileB, roundsArg, simulationsArg] = process.argv.slice(2);
if (!fileA || !fileB) throw new Error('usage: node dist/bench/finalize-ab.js A.node B.node [ROUNDS] [SIMULATIONS]');
const rounds = Number(roundsArg ?? 40);
const simulations = Number(simulationsArg ?? 1_000_000);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(simulations) || simulations < 1000)
  throw new Error('ROUNDS must be a positive integer and SIMULATIONS an integer of at least 1,000');

const builds = { A: new NativeEngine(fileA), B: new NativeEngine(fileB) };
const w2 = workloads(false).find((w) => w.id === 'W2')!;
const prepared = await prepare(new DirectExecutor(builds.A), w2, { simulations });
const spec = simulationSpec(prepared.model, prepared.estimation);
const whole = builds.A.call(ABI.OP_RUN, encodeSpec(spec, 0, blockCount(simulations)));
const halves = planBatches(simulations, 2).map((b) => builds.A.call(ABI.OP_SIMULATE_OWN_TAILS, encodeSpec(spec, b.first, b.end)));
const input = encodeFinalize(halves);

const ms: Record<keyof typeof builds, number[]> = { A: [], B: [] };
for (let round = 0; round < rounds; round++) {
  const order: (keyof typeof builds)[] = round % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  for (const name of order) {
    const started = performance.now();
    const out = builds[name].call(ABI.OP_FINALIZE, input);
    ms[name].push(performance.now() - started);
    if (out.length !== whole.length || out.some((x, i) => !Object.is(x, whole[i]))) throw new Error(`${name}'s OP_FINALIZE differs from A's OP_RUN`);
  }
}
const figures = (xs: number[]) => ({ median_ms: +median(xs).toFixed(2), min_ms: +Math.min(...xs).toFixed(2) });
console.log(JSON.stringify({ simulations, rounds, partial_bytes: input.byteLength, A: figures(ms.A), B: figures(ms.B) }));
