import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { ROOT } from '../../src/paths.js';
import { freePort } from '../helpers/backing-servers.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/service.js';

// Docker cannot run here, so the image is checked piece by piece: its build stage runs the set-up
// script CI runs, and its runtime stage (the copied artefacts, the user, the health check, the
// command) is assembled in a directory and run as an unprivileged user.
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
const stages = dockerfile.split(/^FROM /m).slice(1);
const build = stages.find((s) => / AS build\b/.test(s.split('\n')[0]!))!;
const runtime = stages.find((s) => / AS runtime\b/.test(s.split('\n')[0]!))!;

t.test('the build stage is the set-up script', async (t) => {
  t.ok(build, 'a build stage');
  t.match(build, /^RUN bash scripts\/setup\.sh/m, 'it runs scripts/setup.sh, as npm start, npm test and CI do');
  t.notMatch(build, /cargo build|napi build|wasm-opt|tsc/, 'and no build step of its own');
  t.match(build, /NATIVE_RUSTFLAGS=""/, 'a portable native addon, not one for the builder CPU');
  t.match(build.split('\n')[0], /^\$\{BUILD_BASE\} AS build/);
  const beforeFrom = dockerfile.split(/^FROM /m)[0]!;
  t.match(beforeFrom, /^ARG BUILD_BASE=node:24-trixie$/m, 'by default the Node 24 image on Debian 13: an argument set before any FROM');
  t.match(beforeFrom, /^ARG RUNTIME_BASE=\S+$/m);
});

const copies = [...runtime.matchAll(/^COPY --from=build \S+ \/app\/(\S+) \.\/(\S+)$/gm)].map((m) => ({ from: m[1]!, to: m[2]! }));

t.test('the runtime stage: slim, non-root, health-checked, everything it copies exists', async (t) => {
  t.match(runtime.split('\n')[0], /^\$\{RUNTIME_BASE\} AS runtime/);
  t.match(dockerfile, /^ARG RUNTIME_BASE=node:24-trixie-slim$/m, 'by default the slim Node 24 image on Debian 13');
  const user = /^USER (\S+)$/m.exec(runtime)?.[1];
  t.ok(user && user !== 'root' && user !== '0', `runs as ${user}`);
  t.match(runtime, /^HEALTHCHECK .*CMD \["node", "-e", ".*\/healthz/m);
  t.match(runtime, /^CMD \["node", "dist\/src\/main\.js"\]$/m);
  t.ok(copies.length >= 4, `${copies.length} artefacts copied`);
  t.notOk(
    copies.some((c) => c.from.startsWith('/app/engine') || c.from.startsWith('engine')),
    'no engine source in the image: the engine version comes from the build',
  );
  for (const c of copies) t.ok(existsSync(path.join(ROOT, c.from)), `${c.from} exists after scripts/setup.sh`);
});

t.test('the runtime layout serves as an unprivileged user and passes its health check', async (t) => {
  const image = tempDir('risk-image-');
  chmodSync(image, 0o755);
  for (const c of copies) {
    mkdirSync(path.dirname(path.join(image, c.to)), { recursive: true });
    // Hard links where possible: a copy the unprivileged user can read even when the checkout's
    // directories are private (CI clones into a mode-0700 temp directory).
    const linked = spawnSync('cp', ['-al', path.join(ROOT, c.from), path.join(image, c.to)]).status === 0;
    if (!linked) cpSync(path.join(ROOT, c.from), path.join(image, c.to), { recursive: true });
  }
  const state = path.join(image, 'var-lib-risk');
  mkdirSync(state);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(state, 65534, 65534); // nobody: the image's user owns only its state volume
  const port = await freePort();
  const env = {
    PATH: process.env.PATH!,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: path.join(state, 'data'),
    SECRET_FILE: path.join(state, '.secrets/s'),
    WORKERS: '1',
  };
  // `env -u NODE_OPTIONS`: tap injects its own loader into children, from the (private) checkout.
  const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, 'dist/src/main.js'], {
    cwd: image,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  t.teardown(() => void child.kill('SIGKILL'));
  const deadline = Date.now() + 20_000;
  while (!out.includes('"msg":"listening"') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  t.match(out, /"msg":"listening"/, 'it starts');

  const healthcheck = JSON.parse(/^HEALTHCHECK .*CMD (\[.*\])$/m.exec(runtime)![1]!) as string[];
  const probe = spawnSync(process.execPath, healthcheck.slice(1), { env: { PORT: String(port) }, encoding: 'utf8', timeout: 10_000 });
  t.equal(probe.status, 0, 'the HEALTHCHECK command passes');
  const ready = await call(`http://127.0.0.1:${port}`, 'GET', '/readyz');
  t.equal(ready.status, 200, `ready, engine ${ready.body?.engine}`);

  child.kill('SIGTERM');
  const code = await new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.on('exit', r)));
  t.equal(code, 0, 'SIGTERM drains and exits 0');
  const failing = spawnSync(process.execPath, healthcheck.slice(1), { env: { PORT: String(port) }, encoding: 'utf8', timeout: 10_000 });
  t.equal(failing.status, 1, 'and the health check fails once it is gone');
});

t.test('compose: two replicas sharing Redis and PostgreSQL', async (t) => {
  const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { build?: string; image?: string; environment?: Record<string, string>; depends_on?: Record<string, unknown> }>;
  };
  const replicas = Object.entries(compose.services).filter(([, s]) => s.build === '.');
  t.equal(replicas.length, 2, 'two service replicas built from this Dockerfile');
  for (const [name, s] of replicas) {
    t.match(s.environment?.REDIS_URL, /^redis:\/\/redis:/, `${name}: REDIS_URL`);
    t.match(s.environment?.DATABASE_URL, /^postgres:\/\/.*@postgres:/, `${name}: DATABASE_URL`);
    t.ok(s.environment?.API_KEY_SECRET, `${name}: one HMAC secret for all replicas`);
    t.same(Object.keys(s.depends_on ?? {}).sort(), ['postgres', 'redis']);
  }
  t.match(compose.services.redis?.image, /^redis:/);
  t.match(compose.services.postgres?.image, /^postgres:/);
});
