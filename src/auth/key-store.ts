import { promises as fs, existsSync } from 'node:fs';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { writeFileAtomic } from '../persistence/atomic-file.js';
import { newApiKey, newKeyId } from '../ids.js';

/** A stored key: never the key itself, only its keyed hash and a public id. */
export interface KeyRecord {
  id: string;
  name: string;
  owner: string;
  hash: string;
  created_at: string;
  revoked: boolean;
  revoked_at?: string;
  upload_limit?: number;
  calculate_limit?: number;
}

export interface NewKey {
  name: string;
  owner?: string;
  uploadLimit?: number;
  calculateLimit?: number;
}

export function hashKey(secret: Buffer, key: string): string {
  return createHmac('sha256', secret).update(key, 'utf8').digest('hex');
}

/** A fresh key and the record that stores it (its keyed hash, never the key). */
export function newKeyRecord(secret: Buffer, input: NewKey): { record: KeyRecord; key: string } {
  const key = newApiKey();
  const record: KeyRecord = {
    id: newKeyId(),
    name: input.name,
    owner: input.owner ?? input.name,
    hash: hashKey(secret, key),
    created_at: new Date().toISOString(),
    revoked: false,
    ...(input.uploadLimit !== undefined ? { upload_limit: input.uploadLimit } : {}),
    ...(input.calculateLimit !== undefined ? { calculate_limit: input.calculateLimit } : {}),
  };
  return { record, key };
}

/** Where keys live: a file under DATA_DIR (one node) or PostgreSQL (several replicas). */
export interface KeyStore {
  list(): Promise<KeyRecord[]>;
  create(input: NewKey): Promise<{ record: KeyRecord; key: string }>;
  /** False when there is no active key with this id. */
  revoke(id: string): Promise<boolean>;
  /** Changes whenever the set of keys changes, cheaply, so readers reload only then. */
  stamp(): Promise<string>;
}

/** Keys in one JSON file under DATA_DIR, rewritten atomically under a lock file. */
export class FileKeyStore implements KeyStore {
  readonly file: string;
  private readonly lockFile: string;

  constructor(
    dataDir: string,
    private readonly secret: Buffer,
  ) {
    this.file = path.join(dataDir, 'keys.json');
    this.lockFile = path.join(dataDir, 'keys.lock');
  }

  async list(): Promise<KeyRecord[]> {
    if (!existsSync(this.file)) return [];
    const parsed = JSON.parse(await fs.readFile(this.file, 'utf8')) as { keys: KeyRecord[] };
    return parsed.keys;
  }

  async create(input: NewKey): Promise<{ record: KeyRecord; key: string }> {
    const created = newKeyRecord(this.secret, input);
    await this.update((keys) => [...keys, created.record]);
    return created;
  }

  async stamp(): Promise<string> {
    const stat = await fs.stat(this.file).catch(() => null);
    return stat ? `${stat.mtimeMs}:${stat.size}:${stat.ino}` : 'none';
  }

  async revoke(id: string): Promise<boolean> {
    let found = false;
    await this.update((keys) =>
      keys.map((k) => {
        if (k.id !== id || k.revoked) return k;
        found = true;
        return { ...k, revoked: true, revoked_at: new Date().toISOString() };
      }),
    );
    return found;
  }

  private async update(change: (keys: KeyRecord[]) => KeyRecord[]): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    const release = await this.lock();
    try {
      const keys = change(await this.list());
      await writeFileAtomic(this.file, JSON.stringify({ version: 1, keys }, null, 2) + '\n');
    } finally {
      await release();
    }
  }

  /** Exclusive lock between concurrent writers (CLI runs); a lock older than 30 s is stale. */
  private async lock(): Promise<() => Promise<void>> {
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await fs.open(this.lockFile, 'wx');
        await handle.close();
        return () => fs.rm(this.lockFile, { force: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const stat = await fs.stat(this.lockFile).catch(() => null);
        if (stat && Date.now() - stat.mtimeMs > 30_000) await fs.rm(this.lockFile, { force: true });
        if (attempt > 200) throw new Error(`key store is locked: ${this.lockFile}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }
}
