// The service serves with the newest uWebSockets.js build whose binary loads on this runtime, found
// by trying each, and refuses a runtime none can serve, naming every build's supported runtimes;
// checked on the installed packages and on fake ones.
import t from 'tap';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkUwsRuntime, loadUws, supportedRuntimes, UWS_CANDIDATES, type UwsCandidate } from '../../src/http/uws-runtime.js';

const require = createRequire(import.meta.url);
const searchPaths = require.resolve.paths('uWebSockets.js') ?? [];
const dirOf = (module: string) => searchPaths.map((p) => path.join(p, module)).find((d) => existsSync(d))!;
const OLD = dirOf('uWebSockets.js');
const NEW = dirOf('uws-official-binaries');
const OLD_NAME = '@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0';
const NEW_NAME = '@btc-vision/uwebsockets.js 20.56.0';
const SUPPORTED = `supported runtimes: Node 16, Node 18, Node 20 (${OLD_NAME}); Node 20, Node 22, Node 24, Node 25 with glibc ≥ 2.38 (${NEW_NAME})`;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A node_modules folder holding fake packages: each a package.json and junk `.node` files (they exist, they do not load). */
function fakeModules(packages: Record<string, string[]>): string {
  const root = tempDir('fake-uws-');
  for (const [name, files] of Object.entries(packages)) {
    mkdirSync(path.join(root, name, 'binaries'), { recursive: true });
    writeFileSync(path.join(root, name, 'package.json'), JSON.stringify({ name: `@fake/${name}`, version: '1.0.0' }));
    for (const f of files) writeFileSync(path.join(root, name, 'binaries', f), 'not an ELF object');
  }
  return root;
}
const fakeCandidate = (module: string, needs?: string): UwsCandidate => ({ module, binaries: 'binaries', ...(needs ? { needs } : {}) });

t.test('this runtime loads the newest build that works on it', async (t) => {
  // The new build's binaries are linked against glibc 2.38: below that, the old build serves.
  const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime ?? '0';
  const [major = 0, minor = 0] = glibc.split('.').map(Number);
  const newLoads =
    (major > 2 || (major === 2 && minor >= 38)) && existsSync(path.join(NEW, `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`));
  const { uws, build } = loadUws({ env: {} });
  t.equal(typeof uws.App, 'function', 'the native module');
  t.equal(`${build.package} ${build.version}`, newLoads ? NEW_NAME : OLD_NAME, `glibc ${glibc}, Node ${process.version}`);
  t.equal(build.binary, `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  t.equal(build.sourceCommit, newLoads ? 'ff48755d2f5428973d87f166f40ede34995bee5a' : '', 'the source commit the package records');
  t.doesNotThrow(() => checkUwsRuntime({ env: {} }));
});

t.test('the supported runtimes are read from the installed packages', async (t) => {
  t.equal(supportedRuntimes(path.join(OLD, 'binaries'), 'linux', 'x64'), 'Node 16, Node 18, Node 20');
  t.equal(supportedRuntimes(NEW, 'linux', 'x64'), 'Node 20, Node 22, Node 24, Node 25');
  const fake = fakeModules({ p: ['uws_linux_x64_127.node', 'uws_linux_x64_999.node', 'uws_linux_arm64_137.node', 'README'] });
  t.equal(supportedRuntimes(path.join(fake, 'p', 'binaries'), 'linux', 'x64'), 'Node 22, ABI 999');
  t.equal(supportedRuntimes(path.join(fakeModules({ q: [] }), 'q', 'binaries'), 'linux', 'x64'), 'none');
  t.equal(supportedRuntimes(tempDir('no-binaries-'), 'linux', 'x64'), 'none', 'no binaries folder at all');
});

t.test('a Node major no build has a binary for is refused, naming every build and its runtimes', async (t) => {
  const other = process.versions.modules === '137' ? '127' : '137';
  for (const abi of ['999', '0', other]) {
    t.throws(
      () => loadUws({ abi, env: {} }),
      {
        message: new RegExp(
          `^uWebSockets.js has no build that loads on this runtime \\(Node [\\d?]+, ${process.platform}-${process.arch}, ABI ${abi}\\): ` +
            `${esc(NEW_NAME)}.*; ${esc(OLD_NAME)}.*${esc(SUPPORTED)}\\.$`,
        ),
      },
      `ABI ${abi} on the installed packages`,
    );
  }
  const fake = fakeModules({ a: ['uws_linux_x64_108.node'], b: ['uws_linux_x64_127.node'] });
  t.throws(
    () =>
      loadUws({ candidates: [fakeCandidate('b', 'glibc ≥ 9'), fakeCandidate('a')], searchPaths: [fake], abi: '115', platform: 'linux', arch: 'x64', env: {} }),
    {
      message:
        /no build that loads on this runtime \(Node v?20[\d.]*, linux-x64, ABI 115\): @fake\/b 1\.0\.0 has no native binary for it; @fake\/a 1\.0\.0 has no native binary for it;.*supported runtimes: Node 18 \(@fake\/a 1\.0\.0\); Node 22 with glibc ≥ 9 \(@fake\/b 1\.0\.0\)\.$/,
    },
  );
  t.throws(() => loadUws({ candidates: UWS_CANDIDATES, searchPaths: [tempDir('empty-')], env: {} }), {
    message: /: none is installed;.*supported runtimes: none \(no uWebSockets.js package is installed\)\.$/,
  });
});

t.test('a binary that exists but does not load (another glibc, a damaged install) is passed over for the next build', async (t) => {
  const file = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  const fake = fakeModules({ broken: [file] });
  const { build } = loadUws({ candidates: [fakeCandidate('broken', 'glibc ≥ 9'), ...UWS_CANDIDATES], searchPaths: [fake, ...searchPaths], env: {} });
  t.not(build.package, '@fake/broken', `${build.package} serves`);
  t.throws(() => loadUws({ candidates: [fakeCandidate('broken')], searchPaths: [fake], env: {} }), {
    message: new RegExp(
      `no build that loads on this runtime \\(Node ${esc(process.version)}.*\\): @fake/broken 1\\.0\\.0's binary does not load: .+; its JavaScript fallback .*Run the service on one of the supported runtimes: Node \\d+ \\(@fake/broken 1\\.0\\.0\\)\\.$`,
    ),
  });
});

t.test('the JavaScript fallback, forced by UWS_USE_FALLBACK as the old package reads it, is refused', async (t) => {
  for (const v of ['1', 'true', 'TRUE', 'True'])
    t.throws(() => loadUws({ env: { UWS_USE_FALLBACK: v } }), { message: new RegExp(`^UWS_USE_FALLBACK is set.*\\(${esc(SUPPORTED)}\\)\\.$`) }, v);
  for (const v of ['0', 'false', '', 'tRuE', 'yes'])
    t.doesNotThrow(() => loadUws({ env: { UWS_USE_FALLBACK: v } }), `${JSON.stringify(v)}: a build's binary loads`);
});
