// Runs one Rust test binary compiled for wasm32-wasi(p1) under Node's WASI: the engine's tests on
// the 32-bit target the service ships. Usage: node scripts/run-wasi-test.mjs file.wasm [test args]
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
// returnOnExit: false, so a binary's proc_exit (101 when a test fails) ends the process with its code,
// and an explicit exit after a clean return: with returnOnExit, Node 20.20 crashed (SIGSEGV) on the
// way out of runs whose tests had all passed.
const wasi = new WASI({ version: 'preview1', args: [file, '--test-threads=1', ...args], env: {}, returnOnExit: false });
const module = await WebAssembly.compile(readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exit(wasi.start(instance));
