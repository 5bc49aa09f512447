import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { FileKeyStore } from '../../src/auth/key-store.js';
import { loadKeySecret } from '../../src/auth/secret.js';
import { loadConfig, type Config } from '../../src/config.js';
import { ROOT } from '../../src/paths.js';
import { startService, type RunningService } from '../../src/service.js';

export const SHARED_DATA = path.join(ROOT, 'test/fixtures');
export const WIDE_SAMPLE = path.join(SHARED_DATA, 'prices_wide_sample.csv');
export const LONG_SAMPLE = path.join(SHARED_DATA, 'prices_long_sample.csv');

export interface TestService {
  base: string;
  config: Config;
  service: RunningService;
  keys: FileKeyStore;
  /** A key with generous limits, owner "alice" (also the default owner of newKey). */
  key: string;
  newKey(opts?: { owner?: string; upload?: number; calculate?: number }): Promise<{ id: string; key: string }>;
  dir: string;
  stop(keepData?: boolean): Promise<void>;
}

export function tempDir(prefix = 'risk-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Environment of a test service: a fresh DATA_DIR, an ephemeral port, quiet logs. */
export function testEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATA_DIR: path.join(dir, 'data'),
    SECRET_FILE: path.join(dir, 'secret'),
    PORT: '0',
    HOST: '127.0.0.1',
    WORKERS: '2',
    LOG_LEVEL: 'silent',
    KEY_RELOAD_MS: '100',
    NODE_ENV: 'test',
    ...extra,
  };
}

/** Starts the real service (uWS, Piscina, engine) in this process; `dir` to reuse a DATA_DIR. */
export async function startTestService(extra: Record<string, string> = {}, dir = tempDir()): Promise<TestService> {
  const config = loadConfig(testEnv(dir, extra));
  const keys = new FileKeyStore(config.dataDir, loadKeySecret(config.secretFile));
  const { key } = await keys.create({ name: 'alice', uploadLimit: 1000, calculateLimit: 1000 });
  const service = await startService(config, pino({ level: 'silent' }));
  const newKey = async (opts: { owner?: string; upload?: number; calculate?: number } = {}) => {
    const created = await keys.create({
      name: `k${Math.random().toString(36).slice(2, 8)}`,
      owner: opts.owner ?? 'alice',
      ...(opts.upload !== undefined ? { uploadLimit: opts.upload } : {}),
      ...(opts.calculate !== undefined ? { calculateLimit: opts.calculate } : {}),
    });
    return { id: created.record.id, key: created.key };
  };
  return {
    base: `http://127.0.0.1:${service.port}`,
    config,
    service,
    keys,
    key,
    newKey,
    dir,
    async stop(keepData = false) {
      await service.shutdown();
      if (!keepData) rmSync(dir, { recursive: true, force: true });
    },
  };
}
