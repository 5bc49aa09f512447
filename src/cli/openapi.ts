// `npm run -s openapi > openapi.json`: the OpenAPI document the service would serve with this
// environment (MAX_SIMULATIONS, the engine it picks), without starting it.
import { loadConfig } from '../config.js';
import { serviceOpenApi } from '../contract/openapi.js';
import { resolveEngineSource } from '../engine/load.js';

const config = loadConfig();
process.stdout.write(JSON.stringify(JSON.parse(serviceOpenApi(config.maxSimulations, resolveEngineSource(config.engine).version)), null, 2) + '\n');
