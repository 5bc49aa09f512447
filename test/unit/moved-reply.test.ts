// A worker's reply hands its output's buffer over (Piscina transfers it) instead of cloning it.
import t from 'tap';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { movedReply } from '../../src/worker/moved-reply.js';

t.test('the reply is Piscina-movable: its value is the reply, its transfer list the output buffer', async (t) => {
  const output = Float64Array.from([0, 1, 2, 3]);
  const reply = { output, queueMs: 1, computeMs: 2 };
  const moved = movedReply(reply) as unknown as Record<symbol, unknown>;
  t.equal(moved[Piscina.valueSymbol], reply, 'the value posted is the reply itself');
  t.equal(moved[Piscina.transferableSymbol], output.buffer, 'the output buffer is transferred');
  // What Piscina then does: post the value with the buffer in the transfer list.
  const { port1, port2 } = new MessageChannel();
  const received = new Promise<{ output: Float64Array }>((resolve) => port2.once('message', resolve));
  port1.postMessage(moved[Piscina.valueSymbol], [moved[Piscina.transferableSymbol] as ArrayBuffer]);
  const got = await received;
  t.same(Array.from(got.output), [0, 1, 2, 3], 'the output arrives whole');
  t.equal(output.byteLength, 0, 'and the sender no longer holds it: moved, not copied');
  port1.close();
  port2.close();
});
