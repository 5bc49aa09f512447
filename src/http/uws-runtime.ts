import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Node's module ABI version → its major release, for the message. */
const NODE_OF_ABI: Record<string, string> = { '83': '14', '93': '16', '108': '18', '115': '20', '127': '22', '131': '23', '137': '24' };

/**
 * uWebSockets.js ships native binaries for a few Node majors; on any other runtime (or with
 * UWS_USE_FALLBACK set) it quietly loads a JavaScript shim that listens but fails on the first
 * request. Throws, naming the runtimes it supports, unless this runtime has its binary.
 */
export function checkUwsRuntime(env: NodeJS.ProcessEnv = process.env, abi = process.versions.modules): void {
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('uWebSockets.js/package.json')), 'binaries');
  const prefix = `uws_${process.platform}_${process.arch}_`;
  const abis = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.startsWith(prefix) && f.endsWith('.node'))
        .map((f) => f.slice(prefix.length, -'.node'.length))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  const supported = abis.map((a) => (NODE_OF_ABI[a] ? `Node ${NODE_OF_ABI[a]}` : `ABI ${a}`)).join(', ') || 'none';
  const fallback = /^(1|true)$/i.test(env.UWS_USE_FALLBACK ?? '');
  if (fallback)
    throw new Error(`UWS_USE_FALLBACK is set: the uWebSockets.js JavaScript fallback cannot serve this service; unset it (supported runtimes: ${supported}).`);
  if (!abis.includes(abi)) {
    throw new Error(
      `uWebSockets.js has no native binary for Node ${process.version} (${process.platform}-${process.arch}, ABI ${abi}); ` +
        `its JavaScript fallback would fail on the first request. Run the service on a supported runtime: ${supported}.`,
    );
  }
}
