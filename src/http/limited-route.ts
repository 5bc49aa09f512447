import { type KeyRecord } from '../auth/key-store.js';
import { type LimitedEndpoint } from './access-guard.js';
import { type AppContext, type Handler } from './context.js';
import { isStorageUnavailable } from '../storage/storage-unavailable.js';
import { ApiError, storageUnavailableError } from './errors.js';
import { type Exchange } from './exchange.js';

export type LimitedHandler = (ctx: AppContext, ex: Exchange, key: KeyRecord, limitHeaders: Record<string, string>) => Promise<void>;

/**
 * A route behind a key and a rate limit: authenticate, take a token, then run the handler. Every
 * answer, errors included, carries the endpoint's RateLimit headers.
 */
export function limitedRoute(endpoint: LimitedEndpoint, handler: LimitedHandler): Handler {
  return async (ctx, ex) => {
    const { key, limitHeaders } = await ctx.guard.admit(ex.head, endpoint);
    try {
      await handler(ctx, ex, key, limitHeaders);
    } catch (caught) {
      if (isStorageUnavailable(caught)) ctx.log.warn({ err: caught, key_id: key.id }, 'storage unavailable');
      const e = isStorageUnavailable(caught) ? storageUnavailableError() : caught;
      if (e instanceof ApiError) for (const [name, value] of Object.entries(limitHeaders)) e.headers[name] ??= value;
      throw e;
    }
  };
}
