import net from 'node:net';

/** Sends raw bytes and collects whatever comes back until the peer closes or `ms` passes. */
export function rawExchange(port: number, payload: Buffer | string, ms = 2000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    const done = () => {
      socket.destroy();
      resolve(out);
    };
    const timer = setTimeout(done, ms);
    socket.on('data', (c) => (out += c.toString('latin1')));
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
