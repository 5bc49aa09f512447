// A runtime uWebSockets.js has no binary for, as a real process meets it: the service's own files,
// its own node_modules, but a uWebSockets.js package whose binaries/ lacks this Node's. The package
// then loads its JavaScript shim; the service must refuse to start, not listen and crash later.
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
    if (name !== 'uWebSockets.js') symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name));
  }
  const uws = path.join(modules, 'uWebSockets.js');
  const real = path.join(ROOT, 'node_modules', 'uWebSockets.js');
  mkdirSync(path.join(uws, 'binaries'), { recursive: true });
  for (const name of ['package.json', 'src', 'dist']) symlinkSync(path.join(real, name), path.join(uws, name));
  writeFileSync(path.join(uws, 'binaries', `uws_${process.platform}_${process.arch}_108.node`), 'a Node 18 binary (never loaded here)');
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

t.test('no binary for this Node: exit 1 before listening, naming the runtimes the package has', async (t) => {
  const root = repositoryWithoutThisBinary();
  const dir = tempDir();
  // Links kept as they are, so dist/ resolves its packages from the copy's node_modules.
  const r = spawnSync(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', path.join(root, 'dist/src/main.js')], {
    env: testEnv(dir, { LOG_LEVEL: 'info' }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.match(r.stdout + r.stderr, /Falling back to a NodeJS implementation/, 'the package itself fell back to its shim (the situation is real)');
  t.equal(r.status, 1, 'exit 1');
  t.match(
    r.stderr,
    new RegExp(
      `failed to start: uWebSockets.js has no native binary for this runtime \\(Node ${process.version}, ${process.platform}-${process.arch}, ABI ${process.versions.modules}\\).*supported runtimes: Node 18\\.`,
    ),
    'the supported runtimes are read from the installed package',
  );
  t.notMatch(r.stdout + r.stderr, /listening/, 'never listens');
  t.notOk(existsSync(path.join(dir, 'data')), 'no key, no data directory');
});
