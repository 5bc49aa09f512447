// One batch of 100 books against the same 100 books as single calculate calls, through the real
// service (API contract §8): the batch draws one scenario set over the union of symbols and prices
// every book on it; each single call draws the same scenarios (same seed, same symbols) again.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { generateWide461 } from '../../test/helpers/generate-prices.js';
import { mulberry32 } from '../../test/helpers/mulberry32.js';
import { postCalculate, startBenchService } from './service-bench.js';
import { interleaved, median } from './stats.js';

export interface BatchFigures {
  books: number;
  symbols: number;
  simulations: number;
  repeats: number;
  /** Medians of interleaved runs, wall time seen by the client (ms). */
  batch_ms: number;
  singles_sequential_ms: number;
  singles_2_clients_ms: number;
  /** singles_sequential_ms / batch_ms: the headline. */
  ratio: number;
  ratio_2_clients: number;
  per_book_batch_ms: number;
  per_book_single_ms: number;
  /** meta.timing_ms.engine: of the batch (median over runs), and of one single call (median over every timed call). */
  batch_engine_ms: number;
  single_engine_ms: number;
  /** meta.timing_ms.total (the server's time for the request, before serialising), medians likewise. */
  batch_total_ms: number;
  single_total_ms: number;
  batch_response_bytes: number;
  /** The service's engine build and simulate tasks per calculation; book 0's VaR. */
  engine_build: string;
  engine_tasks: number;
  book0_var: number;
}

interface Position {
  symbol: string;
  quantity: number;
}
interface Book {
  id: string;
  positions: Position[];
}
interface Meta {
  symbols: string[];
  metrics: unknown;
  timing_ms: { engine: number; total: number };
  engine: { build: string; batches: number };
  books?: { id: string; metrics: { value_at_risk: number } }[];
}

export const BATCH_BOOKS = 100;
export const BATCH_SYMBOLS = 20;
export const BATCH_SIMULATIONS = 100_000;
const SEED = 20240611;

/** 100 long/short books over random subsets (2 to 10 symbols) of `symbols`, from a fixed PRNG. */
export function batchBooks(symbols: string[], count = BATCH_BOOKS, seed = 7): Book[] {
  const rand = mulberry32(seed);
  return Array.from({ length: count }, (_, b) => {
    const pool = [...symbols];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    }
    const size = 2 + Math.floor(rand() * 9);
    const positions = pool.slice(0, size).map((symbol) => {
      const units = 100 * (1 + Math.floor(rand() * 50));
      return { symbol, quantity: rand() < 0.4 ? -units : units };
    });
    return { id: `book-${String(b).padStart(3, '0')}`, positions };
  });
}

/** The book over every symbol of `union`, in that order, with zero quantity where it holds nothing. */
function spread(book: Book, union: string[]): Position[] {
  return union.map((symbol) => book.positions.find((p) => p.symbol === symbol) ?? { symbol, quantity: 0 });
}

/**
 * Medians of `repeats` interleaved runs of: one batch request of 100 books; the 100 single calls
 * sent one after the other (one client, like a desk script); the same 100 on 2 concurrent clients.
 * Every book's metrics in the batch are first checked equal to its single call's (it throws if not).
 */
export async function benchBatch(repeats: number, workers = 2): Promise<BatchFigures> {
  const svc = await startBenchService({
    WORKERS: String(workers),
    RATE_LIMIT_CALCULATE_PER_MIN: '1000000',
    RATE_LIMIT_BATCH_PER_MIN: '1000000',
    RATE_LIMIT_UPLOAD_PER_MIN: '1000',
    MAX_QUEUE: '1000',
  });
  try {
    const file = generateWide461();
    const dataset = await svc.upload(file);
    const symbols = readFileSync(file, 'utf8')
      .slice(0, 4000)
      .split('\n')[0]!
      .split(',')
      .slice(1, 1 + BATCH_SYMBOLS);
    const books = batchBooks(symbols);
    const union = [...new Set(books.flatMap((b) => b.positions.map((p) => p.symbol)))];
    if (union.length !== BATCH_SYMBOLS) throw new Error(`batch bench: the books cover ${union.length} symbols, not ${BATCH_SYMBOLS}`);
    const common = {
      dataset_id: dataset,
      method: 'monte_carlo_normal',
      method_options: { seed: SEED },
      currency: 'USD',
      portfolio_mode: 'buy_and_hold',
      confidence_level: 0.99,
      time_horizon: 10,
      simulations: BATCH_SIMULATIONS,
    };
    const batchBody = JSON.stringify({ ...common, books });
    const singleBodies = books.map((b) => JSON.stringify({ ...common, positions: spread(b, union) }));

    const post = async (route: string, body: string): Promise<{ meta: Meta; bytes: number }> => {
      const { text } = await postCalculate(svc, route, body, 'batch bench');
      return { meta: (JSON.parse(text) as { meta: Meta }).meta, bytes: text.length };
    };
    const runBatch = () => post('/batch', batchBody);
    /** The 100 single calls on `clients` concurrent clients, each sending its next call when the last returns. */
    const runSingles = async (clients: number) => {
      const metas: Meta[] = new Array<Meta>(singleBodies.length);
      let next = 0;
      const client = async () => {
        while (next < singleBodies.length) {
          const i = next++;
          metas[i] = (await post('', singleBodies[i]!)).meta;
        }
      };
      await Promise.all(Array.from({ length: clients }, client));
      return metas;
    };

    // Correctness first (and the warm-up: estimate cached, workers tiered up).
    const verify = (batch: Meta, singles: Meta[], when: string) => {
      if (!isDeepStrictEqual(batch.symbols, union)) throw new Error(`batch bench (${when}): meta.symbols ${batch.symbols.join(',')} ≠ ${union.join(',')}`);
      books.forEach((book, i) => {
        const got = batch.books?.[i];
        if (got?.id !== book.id) throw new Error(`batch bench (${when}): book ${i} is ${got?.id}, not ${book.id}`);
        if (!isDeepStrictEqual(got.metrics, singles[i]!.metrics)) {
          throw new Error(
            `batch bench (${when}): ${book.id} batch metrics ≠ single call's\n${JSON.stringify(got.metrics)}\n${JSON.stringify(singles[i]!.metrics)}`,
          );
        }
      });
    };
    const first = await runBatch();
    verify(first.meta, await runSingles(1), 'warm-up');

    // Every timed response, to check them all and to take the server's own timings' medians.
    const timed: Record<'batch' | 'sequential' | 'two_clients', Meta[][]> = { batch: [], sequential: [], two_clients: [] };
    const keep = async (into: Meta[][], run: Promise<Meta[]>) => {
      const metas = await run;
      into.push(metas);
      return metas;
    };
    const { ms } = await interleaved<Meta[]>(
      {
        batch: () =>
          keep(
            timed.batch,
            runBatch().then((r) => [r.meta]),
          ),
        sequential: () => keep(timed.sequential, runSingles(1)),
        two_clients: () => keep(timed.two_clients, runSingles(2)),
      },
      repeats,
    );
    timed.batch.forEach(([batch], r) => {
      verify(batch!, timed.sequential[r]!, `timed run ${r + 1}`);
      verify(batch!, timed.two_clients[r]!, `timed run ${r + 1}, 2 clients`);
    });
    const batchMetas = timed.batch.map(([m]) => m!);
    const singleMetas = timed.sequential.flat();
    return {
      books: books.length,
      symbols: union.length,
      simulations: BATCH_SIMULATIONS,
      repeats,
      batch_ms: ms.batch!,
      singles_sequential_ms: ms.sequential!,
      singles_2_clients_ms: ms.two_clients!,
      ratio: ms.sequential! / ms.batch!,
      ratio_2_clients: ms.two_clients! / ms.batch!,
      per_book_batch_ms: ms.batch! / books.length,
      per_book_single_ms: ms.sequential! / books.length,
      batch_engine_ms: median(batchMetas.map((m) => m.timing_ms.engine)),
      single_engine_ms: median(singleMetas.map((m) => m.timing_ms.engine)),
      batch_total_ms: median(batchMetas.map((m) => m.timing_ms.total)),
      single_total_ms: median(singleMetas.map((m) => m.timing_ms.total)),
      batch_response_bytes: first.bytes,
      engine_build: batchMetas[0]!.engine.build,
      engine_tasks: batchMetas[0]!.engine.batches,
      book0_var: batchMetas[0]!.books![0]!.metrics.value_at_risk,
    };
  } finally {
    await svc.stop();
  }
}
