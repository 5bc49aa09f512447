// /readyz under concurrent probes (review M3): load balancers probe many at once, and no probe may
// make another fail, or anyone could take a replica out of rotation.
import t from 'tap';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startTestService } from '../helpers/service.js';

/** One GET on a fresh connection (as curl does), the raw answer. */
function get(port: number, target: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
    let out = '';
    socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(out));
  });
}

/** `clients` clients at once, each sending its share of `total` GETs one after another (the review's `xargs -P30`). */
async function burst(port: number, total: number, clients: number, target: string): Promise<string[]> {
  const answers: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total) {
        next++;
        answers.push(await get(port, target));
      }
    }),
  );
  return answers;
}

t.test('60 concurrent /readyz all answer 200 and leave no probe file', async (t) => {
  const s = await startTestService();
  t.teardown(() => s.stop());
  for (let round = 1; round <= 20; round++) {
    const replies = await burst(s.service.port, 60, 30, '/readyz');
    const statuses = replies.map((r) => /^HTTP\/1\.1 (\d{3})/.exec(r)?.[1] ?? 'none');
    const bad = statuses.filter((x) => x !== '200');
    t.same(bad, [], `round ${round}: 60 of 60 answered 200 (${60 - bad.length} did)`);
    t.ok(
      replies.every((r) => r.includes('"store_writable":true')),
      `round ${round}: every answer says store_writable true`,
    );
  }
  const left = readdirSync(path.join(s.config.dataDir, 'datasets')).filter((f) => f.includes('probe'));
  t.same(left, [], 'no probe file left behind');
});
