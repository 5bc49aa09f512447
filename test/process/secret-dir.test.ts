// The key secret's place and strength (review L4), as a started process meets them: the service
// refuses to start (exit 1, before listening) when the secret's directory is not its user's with
// mode 0700 or the secret is shorter than 32 bytes; by default each DATA_DIR has its own secret.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';
import { firstKey, spawnService } from '../helpers/process.js';
import { tempDir as newTempDir, testEnv } from '../helpers/service.js';

/** A temporary directory removed when the tests end. */
function tempDir(): string {
  const dir = newTempDir('risk-secret-');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the service to its exit (a refusal exits at once; the timeout only bounds a hang). */
function refusedStart(env: NodeJS.ProcessEnv): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/main.js')], { env: { ...env, LOG_LEVEL: 'info' }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout + r.stderr };
}

t.test('refused: a secret directory of mode 0755, another owner, a short file, a short API_KEY_SECRET', async (t) => {
  const open = tempDir();
  mkdirSync(path.join(open, 'secrets'), { mode: 0o755 });
  chmodSync(path.join(open, 'secrets'), 0o755);
  let r = refusedStart(testEnv(open, { SECRET_FILE: path.join(open, 'secrets', 'hmac') }));
  t.equal(r.code, 1, 'mode 0755: exit 1');
  t.match(r.out, /failed to start: the secret directory \S+ has mode 0755; it must be 0700/, 'naming the mode');
  t.notMatch(r.out, /"msg":"listening"/, 'never listened');
  t.notOk(existsSync(path.join(open, 'secrets', 'hmac')), 'and wrote no secret there');

  if (process.getuid?.() === 0) {
    const theirs = tempDir();
    mkdirSync(path.join(theirs, 'secrets'), { mode: 0o700 });
    chownSync(path.join(theirs, 'secrets'), 65534, 65534);
    r = refusedStart(testEnv(theirs, { SECRET_FILE: path.join(theirs, 'secrets', 'hmac') }));
    t.equal(r.code, 1, "another user's directory: exit 1");
    t.match(r.out, /the secret directory \S+ belongs to uid 65534, not to this user/, 'naming the owner');
  } else {
    t.comment('not root: a directory of another owner cannot be made here, that case is skipped');
  }

  const short = tempDir();
  writeFileSync(path.join(short, 'secret'), 'x'.repeat(31) + '\n', { mode: 0o600 });
  r = refusedStart(testEnv(short));
  t.equal(r.code, 1, 'a 31-byte secret file: exit 1');
  t.match(r.out, /holds 31 bytes; the key secret needs at least 32/, 'naming the length');
  writeFileSync(path.join(short, 'secret'), '', { mode: 0o600 });
  t.equal(refusedStart(testEnv(short)).code, 1, 'an empty secret file: exit 1');

  r = refusedStart(testEnv(tempDir(), { API_KEY_SECRET: 'a' }));
  t.equal(r.code, 1, 'API_KEY_SECRET of 1 character: exit 1');
  t.match(r.out, /API_KEY_SECRET holds 1 bytes; the key secret needs at least 32/);
});

t.test('accepted: 32 bytes exactly; by default each DATA_DIR gets its own secret directory, 0700', async (t) => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'secret'), 'y'.repeat(32), { mode: 0o600 });
  const exact = await spawnService(testEnv(dir), t);
  t.ok(firstKey(exact), 'a 32-byte secret file: started, first key made');
  exact.child.kill('SIGTERM');
  t.equal(await exact.exited, 0, 'drained and exited 0');

  // Two instances with data directories in one parent: neither shares the other's secret or first key.
  const parent = tempDir();
  const started = [];
  for (const name of ['a', 'b']) {
    const env: NodeJS.ProcessEnv = { ...testEnv(parent), DATA_DIR: path.join(parent, name) };
    delete env.SECRET_FILE;
    started.push(await spawnService(env, t));
  }
  const secretDirs = ['a', 'b'].map((name) => path.join(parent, `.${name}-secrets`));
  for (const d of secretDirs) {
    t.equal(statSync(d).mode & 0o777, 0o700, `${path.basename(d)}: mode 0700`);
    t.ok(existsSync(path.join(d, 'api-key-hmac')), `${path.basename(d)}: holds its secret`);
  }
  t.not(readFileSync(path.join(secretDirs[0]!, 'api-key-hmac'), 'utf8'), readFileSync(path.join(secretDirs[1]!, 'api-key-hmac'), 'utf8'), 'two secrets');
  t.notOk(existsSync(path.join(parent, '.secrets')), 'no shared .secrets in the parent');
  const keys = started.map((s) => firstKey(s));
  t.ok(keys[0] && keys[1] && keys[0] !== keys[1], 'each its own first key, in its own file');
  for (const s of started) {
    s.child.kill('SIGTERM');
    t.equal(await s.exited, 0, 'exited 0');
  }
});
