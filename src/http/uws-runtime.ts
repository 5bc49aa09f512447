import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** The uWebSockets.js module as the service uses it (src/types/uws.d.ts). */
export type Uws = typeof import('uWebSockets.js');

/** Node's module ABI version → its major release, for the messages. */
const NODE_OF_ABI: Record<string, string> = {
  '83': '14',
  '93': '16',
  '108': '18',
  '115': '20',
  '127': '22',
  '131': '23',
  '137': '24',
  '141': '25',
  '147': '26',
};

/** The values of UWS_USE_FALLBACK that make the old package load its JavaScript shim (its loader compares exactly these). */
const FALLBACK_FLAGS = ['true', 'True', 'TRUE', '1'];

/** A uWebSockets.js build the service can serve with: an npm alias in package.json. */
export interface UwsCandidate {
  /** Its name in node_modules. */
  module: string;
  /** The folder of its `.node` files, relative to the package. */
  binaries: string;
  /** What its binaries need besides this Node's ABI, said when none loads. */
  needs?: string;
}

/**
 * Newest first; the first whose binary loads serves. The official binaries of v20.56.0 (with
 * Node 20, 22, 24 and 25 builds, linked against glibc 2.38) as republished with their recorded
 * source commit, then the old republish, the only one that loads on glibc 2.36 (Node ≤ 20).
 */
export const UWS_CANDIDATES: readonly UwsCandidate[] = [
  { module: 'uws-official-binaries', binaries: '.', needs: 'glibc ≥ 2.38' },
  { module: 'uWebSockets.js', binaries: 'binaries' },
];

/** Which build serves, for the start-up log and /metrics. */
export interface UwsBuild {
  /** The npm package (not the alias), e.g. @btc-vision/uwebsockets.js. */
  package: string;
  version: string;
  /** The uWebSockets.js commit its binaries were built from, when the package records one. */
  sourceCommit: string;
  /** The binary's file name: platform, arch and Node ABI. */
  binary: string;
}

/** What decides which build can serve: the installed packages and the running Node. */
export interface UwsRuntime {
  candidates: readonly UwsCandidate[];
  /** Where packages are looked up (Node's own list for this file, as a bare import would). */
  searchPaths: string[];
  /** Node's module ABI (`process.versions.modules`). */
  abi: string;
  platform: string;
  arch: string;
  env: NodeJS.ProcessEnv;
}

function thisRuntime(): UwsRuntime {
  return {
    candidates: UWS_CANDIDATES,
    searchPaths: require.resolve.paths('uWebSockets.js') ?? [],
    abi: process.versions.modules,
    platform: process.platform,
    arch: process.arch,
    env: process.env,
  };
}

/** The installed package's folder, found as Node finds a bare import (its exports may hide package.json). */
function packageDir(module: string, searchPaths: string[]): string | undefined {
  return searchPaths.map((p) => path.join(p, module)).find((dir) => existsSync(path.join(dir, 'package.json')));
}

/** The Node majors the package ships a binary for on this platform and arch, read from its files. */
export function supportedRuntimes(binariesDir: string, platform: string, arch: string): string {
  const prefix = `uws_${platform}_${arch}_`;
  const abis = existsSync(binariesDir)
    ? readdirSync(binariesDir)
        .filter((f) => f.startsWith(prefix) && f.endsWith('.node'))
        .map((f) => f.slice(prefix.length, -'.node'.length))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  return abis.map((a) => (NODE_OF_ABI[a] ? `Node ${NODE_OF_ABI[a]}` : `ABI ${a}`)).join(', ') || 'none';
}

interface Installed {
  candidate: UwsCandidate;
  dir: string;
  package: string;
  version: string;
}

function installed(rt: UwsRuntime): Installed[] {
  return rt.candidates.flatMap((candidate) => {
    const dir = packageDir(candidate.module, rt.searchPaths);
    if (!dir) return [];
    const meta = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
    return [{ candidate, dir, package: meta.name ?? candidate.module, version: meta.version ?? '?' }];
  });
}

/** Every installed build's runtimes, oldest build first: "Node 16, Node 18, Node 20 (pkg 1.0); …". */
function supportedText(builds: Installed[], rt: UwsRuntime): string {
  const each = [...builds].reverse().map((b) => {
    const runtimes = supportedRuntimes(path.join(b.dir, b.candidate.binaries), rt.platform, rt.arch);
    return `${runtimes}${b.candidate.needs && runtimes !== 'none' ? ` with ${b.candidate.needs}` : ''} (${b.package} ${b.version})`;
  });
  return `supported runtimes: ${each.join('; ') || 'none (no uWebSockets.js package is installed)'}`;
}

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

/**
 * Loads the newest uWebSockets.js build whose native binary loads on this runtime, by trying each
 * (a binary may exist and still not load: another glibc). Throws, naming every build's supported
 * runtimes, when none loads, and when UWS_USE_FALLBACK is set: the old package's JavaScript shim
 * listens but fails on the first request, so it is never what serves.
 */
export function loadUws(given: Partial<UwsRuntime> = {}): { uws: Uws; build: UwsBuild } {
  const rt = { ...thisRuntime(), ...given };
  const builds = installed(rt);
  const supported = supportedText(builds, rt);
  if (FALLBACK_FLAGS.includes(rt.env.UWS_USE_FALLBACK ?? ''))
    throw new Error(`UWS_USE_FALLBACK is set: the uWebSockets.js JavaScript fallback cannot serve this service; unset it (${supported}).`);
  const file = `uws_${rt.platform}_${rt.arch}_${rt.abi}.node`;
  const node = rt.abi === process.versions.modules ? `Node ${process.version}` : `Node ${NODE_OF_ABI[rt.abi] ?? '?'}`;
  const runtime = `${node}, ${rt.platform}-${rt.arch}, ABI ${rt.abi}`;
  const refused: string[] = [];
  for (const b of builds) {
    const binary = path.join(b.dir, b.candidate.binaries, file);
    if (!existsSync(binary)) {
      refused.push(`${b.package} ${b.version} has no native binary for it`);
      continue;
    }
    let native: unknown;
    try {
      native = require(binary);
    } catch (e) {
      refused.push(`${b.package} ${b.version}'s binary does not load: ${firstLine(e)}`);
      continue;
    }
    // The package's own loader picks the same file (a cache hit); anything else would be its shim.
    const uws = require(b.dir) as Uws;
    if (uws !== native) throw new Error(`${b.package} ${b.version} loaded something other than its binary ${file}.`);
    const commitFile = path.join(b.dir, 'source_commit');
    const sourceCommit = existsSync(commitFile) ? readFileSync(commitFile, 'utf8').trim() : '';
    return { uws, build: { package: b.package, version: b.version, sourceCommit, binary: file } };
  }
  throw new Error(
    `uWebSockets.js has no build that loads on this runtime (${runtime}): ${refused.join('; ') || 'none is installed'}; ` +
      `its JavaScript fallback would fail on the first request. Run the service on one of the ${supported}.`,
  );
}

/** Throws unless a uWebSockets.js build can serve on this runtime (see loadUws). */
export function checkUwsRuntime(given: Partial<UwsRuntime> = {}): void {
  loadUws(given);
}
