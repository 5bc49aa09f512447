import { type Handler } from '../context.js';
import { ApiError } from '../../contract/errors.js';

export const healthRoute: Handler = (_ctx, ex) => ex.json(200, { status: 'ok' });

export const readyRoute: Handler = async (ctx, ex) => {
  const storeOk = await ctx.datasets.writable();
  if (!ctx.ready() || !storeOk || ctx.draining()) {
    throw new ApiError('SERVER_BUSY', 'Not ready.', { engine: ctx.ready(), store_writable: storeOk, draining: ctx.draining() }, { 'Retry-After': '1' });
  }
  ex.json(200, { status: 'ready', engine: ctx.calculator.engine.build, store_writable: true });
};

export const metricsRoute: Handler = async (ctx, ex) => {
  ex.send(200, await ctx.metrics.registry.metrics(), {}, ctx.metrics.registry.contentType);
};

export const openapiRoute: Handler = (ctx, ex) => ex.send(200, ctx.openapi);
