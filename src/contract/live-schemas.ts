// The messages of GET /api/v1/risk/live (api.md §17), client → server. The subscribe message's
// `request` is checked by the calculate request's own schema (the validator of calculate), so a
// live book and a calculation accept exactly the same requests.
import { Type, type Static } from '@sinclair/typebox';
import { MAX_BOOK_ITEMS, PositionItem } from './schemas.js';
import { SymbolName } from './symbol-grammar.js';

/** Most subscriptions one socket may name at once is LIVE_MAX_SUBSCRIPTIONS per key; ids are short. */
const SubscriptionId = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9._:-]+$',
  description: "The client's name for the subscription, echoed in every message about it.",
  examples: ['desk-1'],
});

export const LiveAuth = Type.Object(
  { type: Type.Literal('auth', { description: 'The message type.' }), key: Type.String({ maxLength: 200, description: 'An API key, as in X-API-Key.' }) },
  { additionalProperties: false, description: 'The first message, within 5 s of the upgrade; else the socket closes with 4401.' },
);

export const LiveSubscribe = Type.Object(
  {
    type: Type.Literal('subscribe', { description: 'The message type.' }),
    id: SubscriptionId,
    request: Type.Unknown({ description: 'A calculate request body (Monte Carlo or historical; no what_if, no target_relative_error).' }),
  },
  { additionalProperties: false },
);

export const LivePrices = Type.Object(
  {
    type: Type.Literal('prices', { description: 'The message type.' }),
    id: SubscriptionId,
    prices: Type.Record(SymbolName(), Type.Number({ exclusiveMinimum: 0, maximum: 1e15 }), {
      minProperties: 1,
      maxProperties: MAX_BOOK_ITEMS,
      description:
        "New last prices of symbols of the subscription's scenario set: quantity positions revalue, scenario returns stay. Over a multi-currency dataset a symbol's price is in its own currency, and an FX column the book's conversions use (EURUSD) may tick its rate.",
      examples: [{ AAPL: 191.2 }],
    }),
  },
  { additionalProperties: false },
);

export const LiveTrades = Type.Object(
  {
    type: Type.Literal('trades', { description: 'The message type.' }),
    id: SubscriptionId,
    trades: Type.Array(PositionItem, {
      minItems: 1,
      maxItems: MAX_BOOK_ITEMS,
      description: "Trades added to the book, in symbols of the subscription's scenario set (at the current prices for a quantity).",
    }),
  },
  { additionalProperties: false },
);

export const LiveUnsubscribe = Type.Object(
  { type: Type.Literal('unsubscribe', { description: 'The message type.' }), id: SubscriptionId },
  { additionalProperties: false },
);

export type LiveSubscribeMessage = Static<typeof LiveSubscribe>;
export type LivePricesMessage = Static<typeof LivePrices>;
export type LiveTradesMessage = Static<typeof LiveTrades>;

/** The message types a client may send, each with its schema. */
export const LIVE_MESSAGES = {
  auth: LiveAuth,
  subscribe: LiveSubscribe,
  prices: LivePrices,
  trades: LiveTrades,
  unsubscribe: LiveUnsubscribe,
} as const;

/** Close codes of the live socket (4000–4999 are the application's). */
export const LIVE_CLOSE = {
  /** No auth message in time, a bad key, or a key revoked while connected. */
  unauthorized: 4401,
  /** The server is shutting down: reconnect elsewhere or later. */
  goingAway: 1001,
} as const;
