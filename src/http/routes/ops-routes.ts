import { Gauge, type Registry } from 'prom-client';
import { type AppContext, type Handler } from '../context.js';
import { type Usage } from '../../datasets/quota.js';
import { ApiError } from '../../contract/errors.js';
import { checkMetricsAccess } from '../access-guard.js';

export const healthRoute: Handler = (_ctx, ex) => ex.json(200, { status: 'ok' });

export const readyRoute: Handler = async (ctx, ex) => {
  const storeOk = await ctx.datasets.writable();
  if (!ctx.ready() || !storeOk || ctx.draining()) {
    throw new ApiError('SERVER_BUSY', 'Not ready.', { engine: ctx.ready(), store_writable: storeOk, draining: ctx.draining() }, { 'Retry-After': '1' });
  }
  ex.json(200, { status: 'ready', engine: ctx.calculator.engine.build, store_writable: true });
};

/** Registries that already have the storage gauges: they are added on the first scrape. */
const withStorageGauges = new WeakSet<Registry>();

/** Datasets and stored bytes per owner (the quota's measure; owners are as few as their keys). */
function addStorageGauges(ctx: AppContext): void {
  const registry = ctx.metrics.registry;
  if (withStorageGauges.has(registry)) return;
  withStorageGauges.add(registry);
  // Both gauges of one scrape share one read of the store.
  let reading: Promise<Map<string, Usage> | null> | null = null;
  const read = () =>
    (reading ??= ctx.datasets
      .usageByOwner()
      .catch(() => null)
      .finally(() => (reading = null)));
  const gauge = (name: string, help: string, pick: (u: Usage) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['owner'] as const,
      registers: [registry],
      async collect() {
        const usage = await read();
        if (!usage) return; // a store that cannot answer now leaves the last values
        this.reset();
        for (const [owner, u] of usage) this.set({ owner }, pick(u));
      },
    });
  gauge('datasets_stored_bytes', 'Bytes of stored datasets (their encodings), per owner', (u) => u.bytes);
  gauge('datasets_stored', 'Stored datasets, per owner', (u) => u.count);
}

export const metricsRoute: Handler = async (ctx, ex) => {
  checkMetricsAccess(ex.head, ctx.config);
  addStorageGauges(ctx);
  ex.send(200, await ctx.metrics.registry.metrics(), {}, ctx.metrics.registry.contentType);
};

export const openapiRoute: Handler = (ctx, ex) => ex.send(200, ctx.openapi);
