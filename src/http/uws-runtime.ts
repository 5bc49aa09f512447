import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** Node's module ABI version → its major release, for the message. */
const NODE_OF_ABI: Record<string, string> = { '83': '14', '93': '16', '108': '18', '115': '20', '127': '22', '131': '23', '137': '24' };

/** The values of UWS_USE_FALLBACK that make the package load its JavaScript shim (its loader compares exactly these). */
const FALLBACK_FLAGS = ['true', 'True', 'TRUE', '1'];

/** What decides whether uWebSockets.js can serve: the installed package and the running Node. */
export interface UwsRuntime {
  /** The package's directory: its `binaries/` folder holds one file per platform, arch and ABI. */
  packageDir: string;
  /** Node's module ABI (`process.versions.modules`). */
  abi: string;
  platform: string;
  arch: string;
  env: NodeJS.ProcessEnv;
}

function thisRuntime(): UwsRuntime {
  return {
    packageDir: path.dirname(require.resolve('uWebSockets.js/package.json')),
    abi: process.versions.modules,
    platform: process.platform,
    arch: process.arch,
    env: process.env,
  };
}

/** The Node majors the package ships a binary for on this platform and arch, read from its files. */
export function supportedRuntimes(packageDir: string, platform: string, arch: string): string {
  const dir = path.join(packageDir, 'binaries');
  const prefix = `uws_${platform}_${arch}_`;
  const abis = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.startsWith(prefix) && f.endsWith('.node'))
        .map((f) => f.slice(prefix.length, -'.node'.length))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  return abis.map((a) => (NODE_OF_ABI[a] ? `Node ${NODE_OF_ABI[a]}` : `ABI ${a}`)).join(', ') || 'none';
}

/**
 * uWebSockets.js ships native binaries for a few Node majors; on any other runtime, when its binary
 * cannot be loaded (another libc), or with UWS_USE_FALLBACK set, it quietly loads a JavaScript shim
 * that listens but fails on the first request. Throws, naming the supported runtimes, unless this
 * runtime's binary loads — found by loading it, as the package does.
 */
export function checkUwsRuntime(given: Partial<UwsRuntime> = {}): void {
  const { packageDir, abi, platform, arch, env } = { ...thisRuntime(), ...given };
  const supported = `supported runtimes: ${supportedRuntimes(packageDir, platform, arch)}`;
  if (FALLBACK_FLAGS.includes(env.UWS_USE_FALLBACK ?? ''))
    throw new Error(`UWS_USE_FALLBACK is set: the uWebSockets.js JavaScript fallback cannot serve this service; unset it (${supported}).`);
  const binary = path.join(packageDir, 'binaries', `uws_${platform}_${arch}_${abi}.node`);
  const node = abi === process.versions.modules ? `Node ${process.version}` : `Node ${NODE_OF_ABI[abi] ?? '?'}`;
  const runtime = `${node}, ${platform}-${arch}, ABI ${abi}`;
  if (!existsSync(binary)) {
    throw new Error(
      `uWebSockets.js has no native binary for this runtime (${runtime}); its JavaScript fallback would fail on the first request. ` +
        `Run the service on one of the ${supported}.`,
    );
  }
  try {
    require(binary); // already loaded by the package when it could: then this is a cache hit
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new Error(`uWebSockets.js's native binary for this runtime (${runtime}) does not load: ${why}. Run the service on one of the ${supported}.`);
  }
}
