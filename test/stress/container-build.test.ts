// The real Dockerfile, built with buildah (`bud --isolation chroot`) on local base images made from
// Debian packages (scripts/container-base.sh: no registry serves base images here), then the
// image's own entry command run inside it with `buildah run`: health, an upload and a calculation
// through it, as the image's non-root user. Run by `npm run test:stress` (and .ci/run).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../../src/paths.js';
import { freePort } from '../helpers/backing-servers.js';
import { calcBody, call, uploadFile } from '../helpers/http.js';
import { WIDE_SAMPLE } from '../helpers/service.js';
import { waitFor } from '../helpers/wait.js';

const IMAGE = 'localhost/risk-service:stress-test';
const sh = (command: string, args: string[], timeoutMs: number) => {
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} failed (${r.status}):\n${(r.stderr || r.stdout).slice(-3000)}`);
  return r.stdout.trim();
};

t.test('the Dockerfile builds with buildah and its image serves as a non-root user', async (t) => {
  const base = sh('bash', ['scripts/container-base.sh'], 20 * 60_000)
    .split('\n')
    .pop()!;
  t.equal(base, 'localhost/risk-base:bookworm-node20', 'a local base from Debian packages and this Node');
  sh('buildah', ['bud', '--isolation', 'chroot', '--build-arg', `BUILD_BASE=${base}`, '--build-arg', `RUNTIME_BASE=${base}`, '-t', IMAGE, '.'], 60 * 60_000);
  const config = JSON.parse(sh('buildah', ['inspect', '--type', 'image', IMAGE], 60_000)) as { OCIv1: { config: { User: string; Cmd: string[] } } };
  t.equal(config.OCIv1.config.User, 'risk', 'the image runs as its own user');
  t.same(config.OCIv1.config.Cmd, ['node', 'dist/src/main.js'], 'the entry command');
  const container = sh('buildah', ['from', '-q', IMAGE], 60_000);
  let service: ChildProcess | null = null;
  t.teardown(() => {
    service?.kill('SIGKILL');
    spawnSync('buildah', ['rm', container]);
    spawnSync('buildah', ['rmi', IMAGE]);
  });

  // The image's command as the image's user; buildah's chroot isolation shares the host's network.
  const port = await freePort();
  let log = '';
  service = spawn(
    'buildah',
    [
      'run',
      '--isolation',
      'chroot',
      '--user',
      config.OCIv1.config.User,
      '--env',
      `PORT=${port}`,
      '--env',
      'HOST=127.0.0.1',
      '--env',
      'WORKERS=1',
      container,
      '--',
      ...config.OCIv1.config.Cmd,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  service.stdout!.on('data', (c: Buffer) => (log += c.toString()));
  service.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const { value: pid } = await waitFor(() => /"pid":(\d+)[^\n]*"msg":"listening"/.exec(log)?.[1], 'the service in the image to listen', 120_000);
  const base_ = `http://127.0.0.1:${port}`;
  t.match((await call(base_, 'GET', '/healthz')).body, { status: 'ok' }, '/healthz through the image');
  const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  t.ok(uid !== undefined && uid !== '0', `the service runs as uid ${uid}, not root`);
  t.match(log, /It is in \/var\/lib\/risk\/\.secrets\/first-api-key \(mode 0600\)/, 'the first key goes to the state volume, not the log');
  const key = sh('buildah', ['run', '--isolation', 'chroot', '--user', 'risk', container, '--', 'cat', '/var/lib/risk/.secrets/first-api-key'], 60_000);
  const up = await uploadFile(base_, key, WIDE_SAMPLE);
  t.equal(up.status, 200, 'an upload through the image');
  const calc = await call(base_, 'POST', '/api/v1/risk/calculate', {
    key,
    json: calcBody(up.body.dataset_id, { portfolio_value: 1_000_000, confidence_level: 0.99, time_horizon: 10, simulations: 100_000 }),
  });
  t.equal(calc.status, 200, 'a calculation through the image');
  t.equal(calc.body.meta.engine.build, 'native-x86-64', 'the portable native addon built in the image');
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  t.ok(readme.includes('## Container image'), 'the README says what this exercises');
  process.kill(Number(pid), 'SIGTERM');
  await waitFor(() => (/"msg":"stopped"/.test(log) ? true : undefined), 'SIGTERM to drain and stop the service', 60_000);
});
