// The worker of the pool round-trip benchmark: does nothing but say when it started, so that the
// round trip measures the hand-off alone (post, wake-up, reply).
import { absoluteNow } from '../src/engine/ops.js';

export default function echo(): number {
  return absoluteNow();
}
