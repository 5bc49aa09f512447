// The real Dockerfile, built with buildah (`bud --isolation chroot`) on a local base made from
// Debian 13 packages and the npm registry's Node 24 (scripts/container-base.sh: no registry serves
// base images here), then the image's own entry command run inside it with `buildah run` as the
// image's own user: the runtime (Node ≥ 22 and the uWebSockets.js build for it), health (the image's
// HEALTHCHECK command too), an upload and a calculation through it, SIGTERM; then the HTTP test lane
// inside a container of the image (image-lane.ts). Run by `npm run test:stress` (and .ci/run).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../../src/paths.js';
import { freePort } from '../helpers/backing-servers.js';
import { calcBody, call, uploadFile } from '../helpers/http.js';
import { startTestService } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';
import { laneCommand, prepareLane } from './image-lane.js';

// Named per run: another checkout's run on this machine shares buildah's storage.
const IMAGE = `localhost/risk-service:stress-test-${process.pid}`;
const CONTAINER = `risk-service-stress-test-${process.pid}`;
const LANE = `risk-service-http-lane-${process.pid}`;
const SAMPLE = path.join(ROOT, 'examples/prices_wide_sample.csv');
const MINUTE = 60_000;
// Should this test process die (tap's timeout), buildah dies with it, and the service with buildah.
const BUILDAH = ['--pdeathsig', 'KILL', 'buildah'];

const run = (args: string[], timeoutMs: number) => {
  const r = spawnSync('setpriv', [...BUILDAH, ...args], { cwd: ROOT, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
  return { status: r.status, out: r.stdout.trim(), err: `${r.error?.message ?? ''}${r.stderr}` };
};
const buildah = (args: string[], timeoutMs = MINUTE) => {
  const r = run(args, timeoutMs);
  if (r.status !== 0) throw new Error(`buildah ${args.slice(0, 4).join(' ')} failed (${r.status}):\n${r.err.slice(-3000)}`);
  return r.out;
};

interface ImageConfig {
  User: string;
  Cmd: string[];
  Healthcheck?: { Test: string[] };
}

let built = false;
t.teardown(() => {
  run(['rm', LANE], MINUTE);
  run(['rmi', IMAGE], MINUTE);
});

t.test('the Dockerfile builds with buildah and its image serves as a non-root user', async (t) => {
  const made = spawnSync('bash', ['scripts/container-base.sh'], { cwd: ROOT, encoding: 'utf8', timeout: 15 * MINUTE });
  t.equal(made.status, 0, 'scripts/container-base.sh made (or found) the local base', { stderr: made.stderr.slice(-3000) });
  const base = made.stdout.trim().split('\n').pop();
  t.equal(base, 'localhost/risk-base:trixie-node24', 'a local base from Debian 13 packages and Node 24');
  if (made.status !== 0) return;
  // Docker's format, as `docker build` makes: the OCI format has no place for HEALTHCHECK.
  const args = ['--build-arg', `BUILD_BASE=${base}`, '--build-arg', `RUNTIME_BASE=${base}`];
  buildah(['bud', '--isolation', 'chroot', '--format', 'docker', ...args, '-t', IMAGE, '.'], 35 * MINUTE);
  built = true;
  const config = (JSON.parse(buildah(['inspect', '--type', 'image', IMAGE])) as { Docker: { config: ImageConfig } }).Docker.config;
  t.equal(config.User, 'risk', 'the image runs as its own user');
  t.same(config.Cmd, ['node', 'dist/src/main.js'], 'the entry command');
  t.equal(config.Healthcheck?.Test[0], 'CMD', 'the HEALTHCHECK is in the image');

  buildah(['from', '--name', CONTAINER, IMAGE]);
  const running: { service?: ChildProcess } = {};
  t.teardown(async () => {
    const service = running.service;
    if (service && service.exitCode === null && service.signalCode === null) {
      const exited = new Promise((r) => service.once('exit', r));
      service.kill('SIGKILL'); // buildah's chroot runtime takes the service down with it
      await exited;
    }
    run(['rm', CONTAINER], MINUTE);
  });
  const nodeVersion = buildah(['run', '--isolation', 'chroot', CONTAINER, '--', 'node', '--version']);
  t.ok(Number(/^v(\d+)\./.exec(nodeVersion)?.[1]) >= 22, `the image runs a maintained Node: ${nodeVersion}`);
  t.match(buildah(['run', '--isolation', 'chroot', CONTAINER, '--', 'cat', '/etc/debian_version']), /^13\./, 'on Debian 13');

  // No --user: the container's configured USER is what buildah runs as. Chroot isolation shares
  // the host's network (and PID) namespaces: the port and the pid are the host's.
  const port = await freePort();
  const env = ['--env', `PORT=${port}`, '--env', 'HOST=127.0.0.1', '--env', 'WORKERS=1'];
  let log = '';
  const service = spawn('setpriv', [...BUILDAH, 'run', '--isolation', 'chroot', ...env, CONTAINER, '--', ...config.Cmd], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.service = service;
  service.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  service.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const { value: listening } = await waitFor(
    () => {
      if (service.exitCode !== null) throw new Error(`the service in the image exited ${service.exitCode}:\n${log}`);
      const line = log.split('\n').find((l) => l.includes('"msg":"listening"'));
      return line ? (JSON.parse(line) as { pid: number; engine: string }) : undefined;
    },
    'the service in the image to listen',
    2 * MINUTE,
  );
  const { pid } = listening;
  const base_ = `http://127.0.0.1:${port}`;
  t.match((await call(base_, 'GET', '/healthz')).body, { status: 'ok' }, '/healthz through the image');
  // The newer uWebSockets.js build serves there, and the log and /metrics say so.
  const http = log.split('\n').find((l) => l.includes('"msg":"http layer"'));
  t.match(
    JSON.parse(http ?? '{}'),
    { uws: '@btc-vision/uwebsockets.js', uws_version: '20.56.0', node: nodeVersion },
    'the start-up log names the build and Node',
  );
  const info = `risk_http_server_info{package="@btc-vision/uwebsockets.js",version="20.56.0",source_commit="ff48755d2f5428973d87f166f40ede34995bee5a"`;
  const metrics = (await call(base_, 'GET', '/metrics')).text;
  t.ok(metrics.includes(info), 'and /metrics', { found: /^risk_http_server_info.*$/m.exec(metrics)?.[0] });
  t.match(metrics, new RegExp(`^risk_http_server_info\\{.*node="${nodeVersion}"\\} 1$`, 'm'));

  const healthcheck = ['run', '--isolation', 'chroot', '--env', `PORT=${port}`, CONTAINER, '--', ...config.Healthcheck!.Test.slice(1)];
  t.equal(run(healthcheck, MINUTE).status, 0, "the image's HEALTHCHECK command passes inside it");

  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
  t.equal(uid, buildah(['run', '--isolation', 'chroot', CONTAINER, '--', 'id', '-u']), "the service runs as the image's user");
  t.not(uid, '0', `uid ${uid}, not root`);
  t.match(readFileSync(`/proc/${pid}/root/etc/passwd`, 'utf8'), /^risk:/m, "its root is the image's filesystem");
  t.equal(listening.engine, 'native-x86-64', 'the portable native addon built in the image');

  const keyFile = /It is in (\/var\/lib\/risk\/\.secrets\/first-api-key-key_[0-9A-Za-z]+) \(mode 0600\)/.exec(log)?.[1];
  t.ok(keyFile, 'the first key goes to the state volume (a file named by its id), not the log');
  const key = buildah(['run', '--isolation', 'chroot', CONTAINER, '--', 'cat', keyFile ?? '/var/lib/risk/.secrets/first-api-key-missing']);
  const up = await uploadFile(base_, key, SAMPLE);
  t.equal(up.status, 200, 'the example CSV uploaded through the image');
  t.match(up.body.dataset, { layout: 'wide', rows: 1259, symbols: ['AAPL', 'MSFT', 'AMZN', 'GOOGL', 'JPM', 'XOM', 'JNJ', 'PG', 'KO', 'KHC'] });
  const request = { portfolio_value: 1_000_000, confidence_level: 0.99, time_horizon: 10, simulations: 100_000 };
  const calc = await call(base_, 'POST', '/api/v1/risk/calculate', { key, json: calcBody(up.body.dataset_id, request) });
  t.equal(calc.status, 200, 'a calculation through the image');
  t.equal(calc.body.meta.engine.build, 'native-x86-64');
  t.ok(calc.body.meta.metrics.value_at_risk > 0, `VaR ${calc.body.meta.metrics.value_at_risk}`);

  // The same seed gives the same figures whatever the engine build: the image's equal this checkout's.
  const host = await startTestService();
  t.teardown(() => host.stop());
  const hostUp = await uploadFile(host.base, host.key, SAMPLE);
  const hostCalc = await call(host.base, 'POST', '/api/v1/risk/calculate', { key: host.key, json: calcBody(hostUp.body.dataset_id, request) });
  t.same(calc.body.meta.metrics, hostCalc.body.meta.metrics, `the same metrics as ${hostCalc.body.meta.engine.build} on this machine`);
  t.same(calc.body.meta.contributions, hostCalc.body.meta.contributions, 'and the same contributions');

  process.kill(pid, 'SIGTERM');
  const exited = () => service.exitCode ?? service.signalCode ?? undefined;
  t.equal((await waitFor(exited, 'the service to drain and exit', MINUTE)).value, 0, 'SIGTERM drains the service: buildah run exits 0');
  t.match(log, /"msg":"stopped"/);
  t.not(run(healthcheck, MINUTE).status, 0, 'and the HEALTHCHECK command fails once it is gone');

  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  t.ok(readme.includes('## Container image'), 'the README says what this exercises');
});

t.test('the HTTP test lane passes inside the image', async (t) => {
  if (!built) return t.fail('the image was not built');
  run(['rm', LANE], MINUTE);
  prepareLane(buildah, IMAGE, LANE);
  const lane = run(laneCommand(LANE), 60 * MINUTE);
  const summary = /^# \{ total: \d+.*\}$/m.exec(lane.out)?.[0] ?? '';
  t.equal(lane.status, 0, `test/http and the parser limits under the image's Node and uWebSockets.js: ${summary}`, {
    // tap reports a failure where it happens, often far above the tail: name every one.
    failed: lane.out.split('\n').filter((line) => /^\s*not ok /.test(line)),
    tail: `${lane.out.slice(-6000)}\n${lane.err.slice(-2000)}`,
  });
  t.match(lane.out, /which build serves: @btc-vision\/uwebsockets\.js 20\.56\.0 on Node v2\d\./, 'the newer build served the lane');
  t.match(summary, /pass: [1-9]\d{2,}/, 'hundreds of checks ran');
});
