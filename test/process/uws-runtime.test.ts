// A runtime no uWebSockets.js build has a binary for, as a real process meets it: the service's own
// files, its own node_modules, but the old package's binaries/ lacks this Node's and the new build is
// not installed (an optional dependency). The old package's loader would then load its JavaScript
// shim; the service must refuse to start, not listen and crash later.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';
import { tempDir, testEnv } from '../helpers/service.js';

/**
 * A copy of the repository made of links (dist, build, package.json, every package), except
 * uWebSockets.js: its loader and shim are linked, its binaries/ holds only an old Node's.
 */
function repositoryWithoutThisBinary(): string {
  const root = tempDir('risk-no-uws-binary-');
  for (const name of ['dist', 'build', 'package.json']) symlinkSync(path.join(ROOT, name), path.join(root, name));
  const modules = path.join(root, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (name !== 'uWebSockets.js' && name !== 'uws-official-binaries') symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name));
  }
  const uws = path.join(modules, 'uWebSockets.js');
  const real = path.join(ROOT, 'node_modules', 'uWebSockets.js');
  mkdirSync(path.join(uws, 'binaries'), { recursive: true });
  for (const name of ['package.json', 'src', 'dist']) symlinkSync(path.join(real, name), path.join(uws, name));
  writeFileSync(path.join(uws, 'binaries', `uws_${process.platform}_${process.arch}_108.node`), 'a Node 18 binary (never loaded here)');
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

t.test('no build for this Node: exit 1 before listening, naming the runtimes the installed package has', async (t) => {
  const root = repositoryWithoutThisBinary();
  const dir = tempDir();
  // Links kept as they are, so dist/ resolves its packages from the copy's node_modules.
  const r = spawnSync(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', path.join(root, 'dist/src/main.js')], {
    env: testEnv(dir, { LOG_LEVEL: 'info' }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.notMatch(r.stdout + r.stderr, /Falling back to a NodeJS implementation/, "the package's loader, which would load its shim, is never run");
  t.equal(r.status, 1, 'exit 1');
  t.match(
    r.stderr,
    new RegExp(
      `failed to start: uWebSockets.js has no build that loads on this runtime \\(Node ${process.version}, ${process.platform}-${process.arch}, ABI ${process.versions.modules}\\): ` +
        `@trufflesuite/uws-js-unofficial [^ ]+ has no native binary for it;.*supported runtimes: Node 18 \\(@trufflesuite/uws-js-unofficial [^ ]+\\)\\.`,
    ),
    'the supported runtimes are read from the installed package',
  );
  t.notMatch(r.stdout + r.stderr, /listening/, 'never listens');
  t.notOk(existsSync(path.join(dir, 'data')), 'no key, no data directory');
});
