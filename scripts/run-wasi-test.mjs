// Runs one Rust test binary compiled for wasm32-wasi(p1) under Node's WASI: the engine's tests on
// the 32-bit target the service ships. Usage: node scripts/run-wasi-test.mjs file.wasm [test args]
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [file, '--test-threads=1', ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
