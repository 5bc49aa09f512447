// GET /api/v1/risk/live in the OpenAPI document. OpenAPI describes HTTP only: the upgrade and its
// plain-HTTP refusals are the operation; the messages, whose schemas validate them (client side) or
// type them (server side), are components named in the `x-websocket` extension.
import { Type } from '@sinclair/typebox';
import { LIVE_CLOSE, LIVE_MESSAGES } from './live-schemas.js';
import { errorResponses } from './openapi-responses.js';

/** What the server sends: a `risk` message (calculate's meta, with the inputs it includes) or an `error`. */
export const LiveRisk = Type.Object(
  {
    type: Type.Literal('risk', { description: 'The message type.' }),
    id: Type.String({ description: 'The subscription.' }),
    status: Type.Literal('success', { description: 'Always "success", as on a 200 of calculate.' }),
    seq: Type.Integer({ minimum: 0, description: 'Inputs (prices and trades messages) this update includes: 0 for the subscribe, then increasing.' }),
    meta: Type.Unknown({
      description: 'As CalculateResponse.meta, bit for bit that of calculate with the same seed and the book’s current exposures as market_value.',
    }),
  },
  { description: 'New figures of a subscription.' },
);

export const LiveError = Type.Object(
  {
    type: Type.Literal('error', { description: 'The message type.' }),
    id: Type.Union([Type.String(), Type.Null()], { description: 'The subscription the refused message named, or null.' }),
    detail: Type.Unknown({ description: 'As Error.detail: the code from the table of errors, a message, and the fields its code adds.' }),
  },
  { description: 'A refused message: the subscription, if any, is unchanged.' },
);

/** A client message's component name, from its type: auth → LiveAuth. */
const componentName = (type: string) => `Live${type[0]!.toUpperCase()}${type.slice(1)}`;
const CLIENT_NAMES = Object.keys(LIVE_MESSAGES).map(componentName);

/** The live messages as component schemas, by name. */
export const LIVE_COMPONENTS = {
  ...Object.fromEntries(Object.entries(LIVE_MESSAGES).map(([type, schema]) => [componentName(type), schema])),
  LiveRisk,
  LiveError,
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export function livePath(): Record<string, unknown> {
  return {
    get: {
      operationId: 'liveRisk',
      tags: ['risk'],
      summary: 'Live risk over a WebSocket',
      description: [
        'Upgrades to a WebSocket (send `Upgrade: websocket`). The first message must be `{"type": "auth", "key": …}` within 5 s, else the socket closes with',
        `${LIVE_CLOSE.unauthorized}; a bad or revoked key closes it with ${LIVE_CLOSE.unauthorized} too. Then \`subscribe\` (a calculate request body, Monte Carlo or`,
        'historical: its scenarios are drawn once and kept), `prices` and `trades` (the book revalued on the same scenarios), `unsubscribe`. Each input answers a',
        '`risk` message; inputs arriving while one is computed are coalesced (latest state wins, `seq` counts the inputs included). Refused messages answer an',
        `\`error\` message with a code from the table of errors. Shutdown closes every socket with ${LIVE_CLOSE.goingAway}. Limits: LIVE_MAX_SUBSCRIPTIONS per key,`,
        'LIVE_SCENARIO_MB per subscription, LIVE_MESSAGES_PER_SEC per socket, LIVE_IDLE_TIMEOUT_S. A plain HTTP GET (no upgrade) is 426 UPGRADE_REQUIRED.',
      ].join(' '),
      // The key travels in the auth message, not in a header.
      security: [],
      responses: {
        '101': { description: 'Switching Protocols: the WebSocket is open; send the auth message.' },
        ...errorResponses(['UPGRADE_REQUIRED', 'SERVER_BUSY'], undefined),
      },
      'x-websocket': {
        clientMessages: { oneOf: CLIENT_NAMES.map(ref) },
        serverMessages: { oneOf: [ref('LiveRisk'), ref('LiveError')] },
        closeCodes: {
          [LIVE_CLOSE.unauthorized]: 'no auth message in time, a bad key, or a key revoked while connected',
          [LIVE_CLOSE.goingAway]: 'the server is shutting down',
        },
      },
    },
  };
}
