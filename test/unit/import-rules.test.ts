// The tree's import rules (see README, "Architecture"): checked on the TypeScript sources, so a
// change that breaks one fails here at once — folder rules, no cycle between folders, and no cycle
// between files (type-only imports included). The engine's Rust modules have the same checks in
// engine/core/tests/module_graph.rs.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../src/paths.js';

const SRC = path.join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The unit a file belongs to: its folder under src/, or the file itself at the top (`service.ts`). */
function unitOf(file: string): string {
  const rel = path.relative(SRC, file);
  return rel.includes(path.sep) ? rel.split(path.sep)[0]! : rel.replace(/\.ts$/, '');
}

/** Every relative import of our own code: [importing file, imported file]. */
function imports(): [string, string][] {
  const out: [string, string][] = [];
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      out.push([file, path.resolve(path.dirname(file), m[1]!.replace(/\.js$/, '.ts'))]);
    }
  }
  return out;
}

const edges = imports();
const unitEdges = new Map<string, Set<string>>();
for (const [from, to] of edges) {
  const a = unitOf(from);
  const b = unitOf(to);
  if (a === b) continue;
  if (!unitEdges.has(a)) unitEdges.set(a, new Set());
  unitEdges.get(a)!.add(b);
}
const importsOf = (unit: string) => [...(unitEdges.get(unit) ?? [])].sort();
const rel = (f: string) => path.relative(ROOT, f);

t.test('no folder imports one that imports it back (no cycle between folders)', async (t) => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (unit: string, trail: string[]) => {
    state.set(unit, 'open');
    for (const next of importsOf(unit)) {
      if (state.get(next) === 'open') cycles.push([...trail.slice(trail.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) walk(next, [...trail, next]);
    }
    state.set(unit, 'done');
  };
  for (const unit of [...unitEdges.keys()].sort()) if (!state.has(unit)) walk(unit, [unit]);
  t.same(cycles, [], 'cycles between folders');
});

t.test('no file imports one that imports it back, types included (no cycle between files)', async (t) => {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (file: string, trail: string[]) => {
    state.set(file, 'open');
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === 'open') cycles.push([...trail.slice(trail.indexOf(to)), to].map(rel).join(' → '));
      else if (!state.has(to)) walk(to, [...trail, to]);
    }
    state.set(file, 'done');
  };
  for (const file of [...next.keys()].sort()) if (!state.has(file)) walk(file, [file]);
  t.same(cycles, [], 'cycles between files');
});

const RULES: [string, string[] | 'nothing', string][] = [
  ['contract', 'nothing', 'the API contract is a leaf'],
  ['ids', 'nothing', 'ids are a leaf'],
  ['paths', 'nothing', 'paths are a leaf'],
  ['persistence', ['testing'], 'shared persistence knows nothing above it'],
  ['datasets', ['contract', 'ids', 'persistence'], 'datasets know neither auth nor http'],
  ['engine', ['paths'], 'the binding never imports who calls it'],
  ['worker', ['engine', 'testing'], 'the worker side never imports the pool or http'],
  ['pool', ['engine', 'worker'], 'the pool knows the engine and its workers only'],
  ['risk', ['contract', 'datasets', 'engine', 'ids'], 'risk knows no HTTP and no pool'],
  ['auth', ['ids', 'persistence'], 'auth knows its stores only'],
  ['limits', [], 'limits stand alone'],
  ['cli', ['auth', 'backends', 'config', 'contract', 'paths', 'service'], 'the commands use the service and its parts, never the engine binding'],
];

for (const [unit, allowed, why] of RULES) {
  t.test(`${unit}: ${why}`, async (t) => {
    const got = importsOf(unit);
    const bad = allowed === 'nothing' ? got : got.filter((u) => !allowed.includes(u));
    const where = edges.filter(([f, to]) => unitOf(f) === unit && bad.includes(unitOf(to))).map(([f, to]) => `${rel(f)} → ${rel(to)}`);
    t.same(where, [], `${unit} imports only ${allowed === 'nothing' ? 'nothing of ours' : allowed.join(', ') || 'nothing of ours'}`);
  });
}

t.test('http is imported once, by service.ts; tests and benchmarks keep to their lanes', async (t) => {
  const intoHttp = edges.filter(([f, to]) => unitOf(to) === 'http' && unitOf(f) !== 'http').map(([f]) => rel(f));
  t.same([...new Set(intoHttp)], ['src/service.ts'], 'only service.ts imports http');
  const offenders: string[] = [];
  for (const [dir, forbidden] of [
    ['test', 'bench'],
    ['bench', 'test/(?!helpers/)'],
  ] as const) {
    const files = sources(path.join(ROOT, dir));
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
        const target = path.relative(ROOT, path.resolve(path.dirname(f), m[1]!));
        if (new RegExp(`^${forbidden}`).test(target)) offenders.push(`${rel(f)} → ${target}`);
      }
    }
  }
  t.same(offenders, [], 'tests never import bench/; bench imports only test/helpers/');
});
