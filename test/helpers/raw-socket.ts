import net from 'node:net';

/** Whether `raw` holds one whole HTTP response (head and Content-Length body). */
function complete(raw: string): boolean {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, end))?.[1] ?? 0);
  return Buffer.byteLength(raw.slice(end + 4), 'latin1') >= length;
}

/**
 * Sends raw bytes and collects what comes back until one whole response has arrived, the peer
 * closes, or `ms` passes (a generous bound; callers that cut a client off on purpose pass a short
 * one, and then it is the scenario, not a wait).
 */
export function rawExchange(port: number, payload: Buffer | string, ms = 20_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    const done = () => {
      socket.destroy();
      resolve(out);
    };
    const timer = setTimeout(done, ms);
    socket.on('data', (c) => {
      out += c.toString('latin1');
      if (complete(out)) {
        clearTimeout(timer);
        done();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.write(payload);
  });
}

export function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
}
