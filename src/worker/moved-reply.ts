import { Piscina } from 'piscina';
import { type EngineReply } from '../engine/ops.js';

type Movable = Parameters<typeof Piscina.move>[0];

/**
 * The reply with its output's buffer transferred to the main thread, not copied: a task's partial
 * (megabytes for a large book) would otherwise be cloned on its way. The output is the engine's
 * fresh result, which nothing else in the worker holds. An answer in shared memory is posted as it
 * is: the main thread then sees the same memory.
 */
export function movedReply(reply: EngineReply): EngineReply {
  if (reply.output.buffer instanceof SharedArrayBuffer) return reply;
  const movable = { [Piscina.transferableSymbol]: reply.output.buffer, [Piscina.valueSymbol]: reply };
  return Piscina.move(movable as unknown as Movable) as unknown as EngineReply;
}
