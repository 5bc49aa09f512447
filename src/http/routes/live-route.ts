import { type Handler } from '../context.js';
import { ApiError } from '../../contract/errors.js';

/**
 * GET /api/v1/risk/live as plain HTTP (no `Upgrade: websocket`): uWS hands only upgrades to the
 * WebSocket route, so without this the client would read "no route" for a route that exists.
 */
export const liveWithoutUpgradeRoute: Handler = () => {
  throw new ApiError('UPGRADE_REQUIRED', undefined, {}, { Upgrade: 'websocket' });
};
