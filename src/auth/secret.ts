import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * The HMAC secret keys are hashed with: API_KEY_SECRET if set, else a file generated once beside
 * (not inside) the data directory. Without it a stolen key store cannot be checked offline.
 */
export function loadKeySecret(secretFile: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.API_KEY_SECRET) return Buffer.from(env.API_KEY_SECRET, 'utf8');
  if (!existsSync(secretFile)) {
    mkdirSync(path.dirname(secretFile), { recursive: true, mode: 0o700 });
    try {
      writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // another process made it first
    }
  }
  return Buffer.from(readFileSync(secretFile, 'utf8').trim(), 'utf8');
}
