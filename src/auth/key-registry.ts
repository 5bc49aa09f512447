import { timingSafeEqual } from 'node:crypto';
import { hashKey, type KeyStore, type KeyRecord } from './key-store.js';
import { isWellFormedKey } from './key-format.js';

/**
 * The service's view of the keys: a map from keyed hash to record, reloaded whenever the store's
 * stamp changes, so keys created or revoked by the CLI take effect without a restart. If the store
 * cannot be read (database down), the last keys read stay in force.
 */
export class KeyRegistry {
  private byHash = new Map<string, KeyRecord>();
  private fileStamp = '';
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: KeyStore,
    private readonly secret: Buffer,
  ) {}

  async start(reloadMs: number): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.reload().catch(() => undefined), reloadMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  get size(): number {
    return this.byHash.size;
  }

  async reload(): Promise<void> {
    const stamp = await this.store.stamp();
    if (stamp === this.fileStamp) return;
    const keys = await this.store.list();
    this.byHash = new Map(keys.filter((k) => !k.revoked).map((k) => [k.hash, k]));
    this.fileStamp = stamp;
  }

  /** The live record of a presented key, or null. */
  lookup(presented: string): KeyRecord | null {
    if (!isWellFormedKey(presented)) return null;
    const hash = hashKey(this.secret, presented);
    const record = this.byHash.get(hash);
    if (!record) return null;
    // The map lookup matched; compare again in constant time so no early-exit timing remains.
    return timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex')) ? record : null;
  }
}
