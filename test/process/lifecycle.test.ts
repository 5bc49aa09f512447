// The service as `npm start` runs it: first-start key, keys CLI, restart, SIGTERM, storage hygiene.
import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { calcBody, calculate, call, uploadFile } from '../helpers/http.js';
import { firstKey, keysCli, spawnService } from '../helpers/process.js';
import { ROOT } from '../../src/paths.js';
import { tempDir, testEnv, WIDE_SAMPLE } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

t.test('first start creates one key (in a 0600 file, not the output); restart keeps keys and datasets', async (t) => {
  const dir = tempDir();
  const env = testEnv(dir);
  const first = await spawnService(env, t);
  const key = firstKey(first) ?? '';
  t.match(key, /^prk_live_[0-9A-Za-z]{32}$/, 'a key is created when none exists, in the file the output names');
  t.notMatch(first.stdout(), /prk_live_/, 'the key itself is not in the output: not a terminal, so a log stream');
  t.equal(statSync(/It is in (\S+) \(mode 0600\)/.exec(first.stdout())![1]!).mode & 0o777, 0o600, 'the file is private');
  const base = `http://127.0.0.1:${first.port}`;
  const up = await uploadFile(base, key, WIDE_SAMPLE);
  t.equal(up.status, 200);
  const before = await calculate(base, key, calcBody(up.body.dataset_id));
  t.equal(before.status, 200);

  const created = keysCli(env, ['create', '--name', 'ops', '--owner', 'default', '--json']);
  t.equal(created.code, 0);
  const made = JSON.parse(created.stdout.trim()) as { id: string; key: string; owner: string; name: string; created_at: string };
  t.same(Object.keys(made).sort(), ['created_at', 'id', 'key', 'name', 'owner']);
  t.equal(
    (await call(base, 'GET', `/api/v1/risk/datasets/${up.body.dataset_id}`, { key: made.key })).status,
    200,
    'a key printed by the CLI works for the very next request; same owner sees the dataset',
  );
  const listed = keysCli(env, ['list', '--json'])
    .stdout.trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  t.equal(listed.length, 2);
  t.ok(
    listed.every((k) => !('key' in k) && !('hash' in k)),
    'list never shows keys',
  );
  t.equal(keysCli(env, ['revoke', made.id]).code, 0);
  const revoked = await waitFor(async () => {
    const status = (await call(base, 'GET', `/api/v1/risk/datasets/${up.body.dataset_id}`, { key: made.key })).status;
    return status === 401 ? status : undefined;
  }, 'the revoked key to be refused');
  t.equal(revoked.value, 401, 'a revoked key is refused (after the next reload of the key store)');
  t.comment(`revocation took effect after ${revoked.ms.toFixed(0)} ms (KEY_RELOAD_MS ${env.KEY_RELOAD_MS})`);

  first.child.kill('SIGTERM');
  t.equal(await first.exited, 0, 'SIGTERM exits 0');

  const second = await spawnService(env, t);
  t.notMatch(second.stdout(), /prk_live_|It is in/, 'no new key when one exists');
  const base2 = `http://127.0.0.1:${second.port}`;
  const after = await calculate(base2, key, calcBody(up.body.dataset_id));
  t.equal(after.status, 200, 'key and dataset survive a restart');
  t.same(after.body.meta.metrics, before.body.meta.metrics, 'same seeded answer after restart');

  // No key string anywhere under DATA_DIR: only keyed hashes are stored.
  for (const file of filesUnder(env.DATA_DIR!)) {
    const content = readFileSync(file);
    t.notOk(content.includes(key) || content.includes(made.key), `no key in ${path.basename(file)}`);
  }
  t.notOk(second.stdout().includes(made.key), 'no key in the logs');
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0);
});

t.test('on a terminal the first key is printed there, and no file holds it', async (t) => {
  const dir = tempDir();
  // `script` gives the service a pseudo-terminal as stdout, as a person running `npm start` has.
  const child = spawn('script', ['-qfec', `${process.execPath} ${path.join(ROOT, 'dist/src/main.js')}`, '/dev/null'], {
    env: { ...testEnv(dir), LOG_LEVEL: 'info' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  t.teardown(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  await waitFor(() => (/"msg":"listening"/.test(out) ? true : undefined), 'the service listening on a terminal', 120_000);
  t.match(out, /Store it now[^]*prk_live_[0-9A-Za-z]{32}/, 'the key is shown on the terminal');
  t.same(
    readdirSync(dir).filter((f) => f.startsWith('first-api-key')),
    [],
    'and written nowhere else',
  );
});

t.test('a runtime uWebSockets.js cannot serve: refused at start with the supported runtimes named, nothing created', async (t) => {
  const dir = tempDir();
  const r = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/main.js')], {
    env: { ...testEnv(dir), UWS_USE_FALLBACK: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.equal(r.status, 1, 'exit 1');
  t.match(r.stderr, /failed to start: UWS_USE_FALLBACK is set.*supported runtimes: Node 16, Node 18, Node 20/);
  t.notMatch(r.stdout + r.stderr, /listening/, 'never listens');
  t.notOk(existsSync(path.join(dir, 'data')), 'no key, no data directory');
});

t.test('SIGTERM during a calculation: it still answers 200, then the process exits 0', async (t) => {
  const { svc, key, base, ds } = await servingWithDataset(t, '1');
  const pending = calculate(base, key, calcBody(ds, { method: 'monte_carlo_student_t', simulations: 400_000, time_horizon: 20 }));
  await engineBusy(base);
  svc.child.kill('SIGTERM');
  const r = await pending;
  t.equal(r.status, 200, 'in-flight calculation completes');
  t.equal(await svc.exited, 0);
});

t.test('SIGTERM with 5 calculations in flight: all 5 answer 200, new requests 503, exit 0', async (t) => {
  const { svc, key, base, ds } = await servingWithDataset(t, '2');
  await calculate(base, key, calcBody(ds, { simulations: 1000 })); // estimate cached
  const inFlight = Array.from({ length: 5 }, (_, i) =>
    calculate(base, key, calcBody(ds, { method: 'monte_carlo_student_t', simulations: 150_000, method_options: { seed: i } })),
  );
  await engineBusy(base);
  const early = await connected(Number(new URL(base).port));
  svc.child.kill('SIGTERM');
  await waitFor(() => (svc.stdout().includes('"msg":"draining"') ? true : undefined), 'the drain to begin');
  const late = await call(base, 'GET', '/readyz').catch(() => ({ status: 0 }));
  t.ok(late.status === 0 || late.status === 503, `a new request is refused or answered 503 (got ${late.status})`);
  const late2 = await calculate(base, key, calcBody(ds)).catch(() => ({ status: 0, body: null }));
  t.ok(late2.status === 0 || late2.status === 503, `a new calculation is refused (connection) or 503 (got ${late2.status})`);
  // A live socket's upgrade on a connection opened before the drain (new ones are refused): the
  // contract's 503, with its body, as every other request during the drain gets.
  const upgrade = await upgradeOn(early);
  t.match(upgrade, /^HTTP\/1\.1 503 Service Unavailable\r\n/, 'an upgrade during the drain: 503');
  t.match(upgrade, /\r\nRetry-After: 1\r\n/i, 'with Retry-After');
  t.match(upgrade, /"code":"SERVER_BUSY"/, 'and the error body of every other 503');
  const statuses = (await Promise.all(inFlight)).map((r) => r.status);
  t.same(statuses, [200, 200, 200, 200, 200], 'every in-flight calculation completes');
  t.equal(await svc.exited, 0, 'exit 0');
  t.match(svc.stdout(), /"unfinished":0,"msg":"stopped"/, 'nothing left unfinished (the grace period is 25 s)');
});

t.test('npm start, SIGTERM to npm: the service drains at once (readyz 503, socket closed), finishes its work, exits 0', async (t) => {
  const { svc, base, key, ds } = await servingWithDataset(t, '1', 'npm-start');
  const pending = calculate(base, key, calcBody(ds, { method: 'monte_carlo_student_t', simulations: 1_000_000, time_horizon: 20 }));
  await engineBusy(base);
  svc.child.kill('SIGTERM'); // to npm, as a process manager or a terminal would send it
  await waitFor(() => (svc.stdout().includes('"msg":"draining"') ? true : undefined), 'the service to receive SIGTERM through npm');
  const ready = await freshConnectionStatus(svc.port, '/readyz');
  t.ok(ready === 'ECONNREFUSED' || ready === 503, `from the first moment of the drain a load balancer sees it: ${ready}`);
  t.equal(await freshConnectionStatus(svc.port, '/healthz'), 'ECONNREFUSED', 'the listening socket is closed');
  t.equal((await pending).status, 200, 'the in-flight calculation still completes');
  t.equal(await svc.exited, 0, 'npm exits 0 with the service');
});

/** A service started as `npm start` serves it (first key printed), with the sample uploaded. */
async function servingWithDataset(t: Test, workers: string, how: 'node' | 'npm-start' = 'node') {
  const svc = await spawnService(testEnv(tempDir(), { WORKERS: workers }), t, how);
  const key = firstKey(svc)!;
  const base = `http://127.0.0.1:${svc.port}`;
  const ds = (await uploadFile(base, key, WIDE_SAMPLE)).body.dataset_id as string;
  return { svc, key, base, ds };
}

/** Until the engine is computing (a task in flight), by the service's own metric. */
async function engineBusy(base: string): Promise<void> {
  await waitFor(async () => (/engine_tasks_in_flight [1-9]/.test((await call(base, 'GET', '/metrics')).text) ? true : undefined), 'the engine to be busy');
}

/** A request on a new connection (as a load balancer's probe): its status, or the connection error. */
function freshConnectionStatus(port: number, path: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/** A TCP connection to the service, open before what the test does next. */
function connected(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

/** A WebSocket upgrade request on `socket`, and the head and body of the answer (until it closes or a whole answer came). */
function upgradeOn(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    const done = () => (socket.destroy(), resolve(out));
    socket.on('data', (c) => {
      out += c.toString('latin1');
      const end = out.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(out)?.[1] ?? NaN);
      if (end >= 0 && out.length - end - 4 >= length) done();
    });
    socket.on('close', done);
    socket.write(
      'GET /api/v1/risk/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
  });
}
