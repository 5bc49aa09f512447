import { type KeyRecord } from '../auth/key-store.js';
import { type LimitedEndpoint } from './access-guard.js';
import { type AppContext, type Handler } from './context.js';
import { ApiError } from './errors.js';
import { type Exchange } from './exchange.js';

export type LimitedHandler = (ctx: AppContext, ex: Exchange, key: KeyRecord, limitHeaders: Record<string, string>) => Promise<void>;

/**
 * A route behind a key and a rate limit: authenticate, take a token, then run the handler. Every
 * answer, errors included, carries the endpoint's RateLimit headers.
 */
export function limitedRoute(endpoint: LimitedEndpoint, handler: LimitedHandler): Handler {
  return async (ctx, ex) => {
    const key = ctx.guard.authenticate(ex.head);
    const limitHeaders = ctx.guard.admit(key, endpoint);
    try {
      await handler(ctx, ex, key, limitHeaders);
    } catch (e) {
      if (e instanceof ApiError) for (const [name, value] of Object.entries(limitHeaders)) e.headers[name] ??= value;
      throw e;
    }
  };
}
