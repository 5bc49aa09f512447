// `npm run -s openapi > openapi.json`: the OpenAPI document the service would serve with this
// environment (MAX_SIMULATIONS), without starting it. The engine version is the crate's own, which
// every build reports (OP_ABI), read from its manifest rather than by loading an engine.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { serviceOpenApi } from '../contract/openapi.js';
import { ROOT } from '../paths.js';

const manifest = readFileSync(path.join(ROOT, 'engine/core/Cargo.toml'), 'utf8');
const version = /^version\s*=\s*"([^"]+)"/m.exec(manifest)?.[1];
if (!version) throw new Error('engine/core/Cargo.toml states no version');
const config = loadConfig();
process.stdout.write(JSON.stringify(JSON.parse(serviceOpenApi(config.maxSimulations, version)), null, 2) + '\n');
