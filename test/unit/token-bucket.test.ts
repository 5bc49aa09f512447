// The token bucket's arithmetic on a hand-driven clock: capacity, refusal, Retry-After, refill.
import t from 'tap';
import { TokenBuckets } from '../../src/limits/token-bucket.js';

t.test('token bucket arithmetic', async (t) => {
  let now = 0;
  const b = new TokenBuckets(() => now);
  for (let i = 0; i < 10; i++) t.ok(b.take('k', 10).allowed);
  const refused = b.take('k', 10);
  t.notOk(refused.allowed, 'the 11th in a minute is refused');
  t.equal(refused.retryAfter, 6, 'one token per 6 s at 10/min');
  now += 6000;
  t.ok(b.take('k', 10).allowed, 'a token is back after 6 s');
  t.equal(b.take('k', 10).remaining, 0);
  now += 600_000;
  t.equal(b.take('k', 10).remaining, 9, 'refill stops at capacity');
});
