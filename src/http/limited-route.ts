import { type KeyRecord } from '../auth/key-store.js';
import { type Admission, type LimitedEndpoint } from './access-guard.js';
import { type AppContext, type Handler } from './context.js';
import { type Exchange } from './exchange.js';

export type LimitedHandler = (ctx: AppContext, ex: Exchange, key: KeyRecord) => Promise<void>;

/** Authenticates the request (and takes a token for a limited endpoint); the access log names the key's id. */
export async function admit(ctx: AppContext, ex: Exchange, endpoint: LimitedEndpoint | null): Promise<Admission> {
  const admission = await ctx.guard.admit(ex.head, endpoint, (keyId) => (ex.keyId = keyId));
  ex.addHeaders(admission.limitHeaders);
  return admission;
}

/**
 * A route behind a key and a rate limit: authenticate, take a token, then run the handler. Every
 * answer, errors included, carries the endpoint's RateLimit headers.
 */
export function limitedRoute(endpoint: LimitedEndpoint, handler: LimitedHandler): Handler {
  return async (ctx, ex) => {
    const { key } = await admit(ctx, ex, endpoint);
    await handler(ctx, ex, key);
  };
}
