import { type KeyRecord } from '../auth/key-store.js';
import { type LimitedEndpoint } from './access-guard.js';
import { type AppContext, type Handler } from './context.js';
import { type Exchange } from './exchange.js';

export type LimitedHandler = (ctx: AppContext, ex: Exchange, key: KeyRecord) => Promise<void>;

/**
 * A route behind a key and a rate limit: authenticate, take a token, then run the handler. Every
 * answer, errors included, carries the endpoint's RateLimit headers.
 */
export function limitedRoute(endpoint: LimitedEndpoint, handler: LimitedHandler): Handler {
  return async (ctx, ex) => {
    const { key, limitHeaders } = await ctx.guard.admit(ex.head, endpoint);
    ex.addHeaders(limitHeaders);
    await handler(ctx, ex, key);
  };
}
