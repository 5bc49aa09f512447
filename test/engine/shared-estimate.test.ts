// Two requests share one cached estimate. When the client of the request that started it goes
// away, its abort must not fail the other request: that one estimates again under its own deadline.
import t from 'tap';
import { calculate } from '../../src/risk/calculate.js';
import { EstimateCache } from '../../src/risk/estimate-cache.js';
import { type Estimation } from '../../src/engine/codec.js';
import { DirectExecutor } from '../../src/engine/direct-executor.js';
import { instantiateEngine, resolveEngineSource } from '../../src/engine/load.js';
import { ABI } from '../../src/engine/abi.js';
import { type EngineExecutor, type EngineInput, type EngineReply, type OpCode } from '../../src/engine/ops.js';
import { validateRequest } from '../helpers/calculation-domain.js';
import { baseRequest } from '../helpers/edge-requests.js';
import { fourBuilds, OWNER, storeSyntheticDataset } from '../helpers/four-builds.js';
import { waitFor } from '../helpers/wait.js';

/** The service's estimate cache, counting who asks it. */
class CountingCache extends EstimateCache {
  asked = 0;
  override get(key: string, compute: () => Promise<Estimation>): Promise<Estimation> {
    this.asked++;
    return super.get(key, compute);
  }
}

/** The real engine, with estimations held until `release()` (or aborted by their own signal). */
class GatedExecutor implements EngineExecutor {
  private readonly direct = new DirectExecutor(instantiateEngine(resolveEngineSource('wasm')));
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  estimations = 0;

  release(): void {
    this.open();
  }

  async run(op: OpCode, input: EngineInput, signal?: AbortSignal): Promise<EngineReply> {
    if (op === ABI.OP_ESTIMATE) {
      this.estimations++;
      await new Promise<void>((resolve, reject) => {
        const abort = () => reject(Object.assign(new Error('The task has been aborted'), { name: 'AbortError' }));
        if (signal?.aborted) return abort();
        signal?.addEventListener('abort', abort, { once: true });
        void this.gate.then(resolve);
      });
    }
    return this.direct.run(op, input);
  }
}

t.test("a request sharing an estimate survives the other request's client going away", async (t) => {
  const { store, id, symbols } = await storeSyntheticDataset(8, 300);
  const [reference] = fourBuilds(store);
  const executor = new GatedExecutor();
  const estimates = new CountingCache();
  const deps = { ...reference!.deps, executor, estimates };
  const request = validateRequest(baseRequest(id, symbols));
  const leaving = new AbortController();
  const first = calculate(request, OWNER, deps, leaving.signal);
  const second = calculate(request, OWNER, deps); // joins the estimate the first one started
  await waitFor(() => (estimates.asked === 2 ? true : undefined), 'both requests to ask for the estimate');
  t.equal(executor.estimations, 1, 'one estimation under way, shared');
  leaving.abort();
  await t.rejects(first, { name: 'AbortError' }, 'the request whose client left ends');
  executor.release();
  const answered = await second;
  t.equal(executor.estimations, 2, 'the other request estimated again, once');
  const alone = await calculate(request, OWNER, reference!.deps);
  t.same(answered.meta.metrics, alone.meta.metrics, 'and answers exactly what it answers alone');
});
