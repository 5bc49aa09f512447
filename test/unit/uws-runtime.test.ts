// The service refuses a runtime uWebSockets.js cannot serve, naming the runtimes the installed
// package has binaries for; checked on the real package and on fake package directories.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkUwsRuntime, supportedRuntimes } from '../../src/http/uws-runtime.js';

const installed = path.dirname(createRequire(import.meta.url).resolve('uWebSockets.js/package.json'));

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A package directory whose `binaries/` holds the given files (junk bytes: they exist, they do not load). */
function fakePackage(files: string[]): string {
  const dir = tempDir('fake-uws-');
  mkdirSync(path.join(dir, 'binaries'));
  for (const f of files) writeFileSync(path.join(dir, 'binaries', f), 'not an ELF object');
  return dir;
}

t.test('this runtime has its binary, and it loads', async (t) => {
  t.doesNotThrow(() => checkUwsRuntime({ env: {} }));
});

t.test('the supported runtimes are read from the installed package', async (t) => {
  t.equal(supportedRuntimes(installed, 'linux', 'x64'), 'Node 16, Node 18, Node 20');
  t.equal(
    supportedRuntimes(fakePackage(['uws_linux_x64_127.node', 'uws_linux_x64_999.node', 'uws_linux_arm64_137.node', 'README']), 'linux', 'x64'),
    'Node 22, ABI 999',
  );
  t.equal(supportedRuntimes(fakePackage([]), 'linux', 'x64'), 'none');
  t.equal(supportedRuntimes(tempDir('no-binaries-'), 'linux', 'x64'), 'none', 'no binaries folder at all');
});

t.test('a Node major without a binary is refused, naming the supported ones', async (t) => {
  for (const abi of ['127', '137', '999', '0']) {
    t.throws(
      () => checkUwsRuntime({ abi, env: {} }),
      {
        message: new RegExp(
          `no native binary for this runtime \\(Node [\\d?]+, ${process.platform}-${process.arch}, ABI ${abi}\\).*supported runtimes: Node 16, Node 18, Node 20\\.$`,
        ),
      },
      `ABI ${abi} on the installed package`,
    );
  }
  const fake = fakePackage(['uws_linux_x64_108.node', 'uws_linux_x64_127.node']);
  t.throws(() => checkUwsRuntime({ packageDir: fake, abi: '115', platform: 'linux', arch: 'x64', env: {} }), {
    message: /no native binary for this runtime \(Node v?20[\d.]*, linux-x64, ABI 115\).*supported runtimes: Node 18, Node 22\.$/,
  });
  t.throws(() => checkUwsRuntime({ packageDir: fake, abi: '108', platform: 'linux', arch: 'arm64', env: {} }), {
    message: /no native binary .*linux-arm64.*supported runtimes: none\.$/,
  });
});

t.test('a binary that exists but does not load (another libc, a damaged install) is refused too', async (t) => {
  const fake = fakePackage([`uws_${process.platform}_${process.arch}_${process.versions.modules}.node`]);
  t.throws(() => checkUwsRuntime({ packageDir: fake, env: {} }), {
    message: new RegExp(
      `native binary for this runtime \\(Node ${process.version}.*\\) does not load: .+\\. Run the service on one of the supported runtimes: Node \\d+\\.$`,
    ),
  });
});

t.test('the JavaScript fallback, forced by UWS_USE_FALLBACK as the package reads it, is refused', async (t) => {
  for (const v of ['1', 'true', 'TRUE', 'True'])
    t.throws(
      () => checkUwsRuntime({ env: { UWS_USE_FALLBACK: v } }),
      { message: /^UWS_USE_FALLBACK is set.*supported runtimes: Node 16, Node 18, Node 20\)\.$/ },
      v,
    );
  for (const v of ['0', 'false', '', 'tRuE', 'yes'])
    t.doesNotThrow(() => checkUwsRuntime({ env: { UWS_USE_FALLBACK: v } }), `${JSON.stringify(v)}: the package loads its binary`);
});
