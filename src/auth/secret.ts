import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** The shortest HMAC secret accepted: 32 bytes, the hash's own size (review L4). */
export const MIN_SECRET_BYTES = 32;

/**
 * The HMAC secret keys are hashed with: API_KEY_SECRET if set, else a file generated once beside
 * (not inside) the data directory. Without it a stolen key store cannot be checked offline. Throws
 * (the service then refuses to start) when the secret is shorter than 32 bytes, or when its
 * directory is not this user's with mode 0700: another user could read or replace it.
 */
export function loadKeySecret(secretFile: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  if (env.API_KEY_SECRET) return checkLength(Buffer.from(env.API_KEY_SECRET, 'utf8'), 'API_KEY_SECRET');
  const dir = path.dirname(secretFile);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // the mode of mkdir is masked by the umask
  }
  checkDirectory(dir);
  if (!existsSync(secretFile)) {
    try {
      writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // another process made it first
    }
  }
  return checkLength(Buffer.from(readFileSync(secretFile, 'utf8').trim(), 'utf8'), `the secret file ${secretFile}`);
}

function checkLength(secret: Buffer, what: string): Buffer {
  if (secret.length < MIN_SECRET_BYTES) throw new Error(`${what} holds ${secret.length} bytes; the key secret needs at least ${MIN_SECRET_BYTES}`);
  return secret;
}

/** The secret's directory must be a directory of this user, readable by no one else (0700). */
function checkDirectory(dir: string): void {
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`the secret directory ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new Error(`the secret directory ${dir} belongs to uid ${st.uid}, not to this user (uid ${uid})`);
  const mode = st.mode & 0o777;
  if (uid !== undefined && mode !== 0o700) throw new Error(`the secret directory ${dir} has mode ${mode.toString(8).padStart(4, '0')}; it must be 0700`);
}
