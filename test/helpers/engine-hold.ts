// The test-only "hold" engine fault (src/testing/fault-hooks.ts) as three steps: arm it before the
// request, wait until its task is held in a worker, release it. Set up before the service starts:
// the workers read ENGINE_FAULT_FILE from this process's environment.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './service.js';
import { waitFor } from './wait.js';

export interface EngineHold {
  /** The next engine task waits in its worker until `release`. */
  arm(): void;
  /** Resolves once that task is held. */
  held(what: string): Promise<unknown>;
  release(): void;
}

export function engineHold(): EngineHold {
  const file = path.join(tempDir('risk-hold-'), 'fault');
  process.env.NODE_ENV = 'test'; // fault hooks are inert otherwise
  process.env.ENGINE_FAULT_FILE = file;
  return {
    arm: () => writeFileSync(file, 'hold'),
    held: (what) => waitFor(() => (existsSync(`${file}.held`) ? true : undefined), what, 60_000),
    release: () => writeFileSync(`${file}.release`, ''),
  };
}
