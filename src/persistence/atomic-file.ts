import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { takeStorageFault } from '../testing/fault-hooks.js';

/** Prefix of temp files: whatever carries it after a crash is swept at start. */
export const TEMP_PREFIX = '.tmp-';

function ioError(code: 'ENOSPC' | 'EIO', syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected fault, ${syscall}`), { code, syscall });
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `data` to `file` so that a crash at any moment leaves either the old content or the new:
 * temp file, fsync, rename over the target, fsync the directory. The temp file never outlives a
 * failure.
 */
export async function writeFileAtomic(file: string, data: Buffer | string, mode = 0o600): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `${TEMP_PREFIX}${path.basename(file)}-${randomBytes(6).toString('hex')}`);
  try {
    const fault = takeStorageFault();
    const handle = await fs.open(temp, 'wx', mode);
    try {
      await handle.writeFile(fault === 'enospc' ? Buffer.from(data).subarray(0, 100) : data);
      if (fault === 'enospc') throw ioError('ENOSPC', 'write');
      await handle.sync();
      if (fault === 'eio') throw ioError('EIO', 'fsync');
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
    await fsyncDir(dir);
  } catch (e) {
    await fs.rm(temp, { force: true });
    throw e;
  }
}

/** Removes a file durably (the directory entry's removal is fsync'd). */
export async function removeFileDurably(file: string): Promise<boolean> {
  try {
    await fs.unlink(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  await fsyncDir(path.dirname(file));
  return true;
}

/** Deletes temp files a crash left behind; returns how many. */
export async function sweepTempFiles(dir: string): Promise<number> {
  const names = await fs.readdir(dir);
  const stale = names.filter((n) => n.startsWith(TEMP_PREFIX));
  await Promise.all(stale.map((n) => fs.rm(path.join(dir, n), { force: true })));
  return stale.length;
}
