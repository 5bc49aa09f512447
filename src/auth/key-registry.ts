import { timingSafeEqual } from 'node:crypto';
import { hashKey, type KeyStore, type KeyRecord } from './key-store.js';
import { isWellFormedKey } from './key-format.js';

/**
 * The service's view of the keys: a map from keyed hash to record, reloaded whenever the store's
 * stamp changes, so keys created or revoked by the CLI take effect without a restart. A key not in
 * the map is looked for in the store once before it is refused, so a key works for the very next
 * request after `keys create` prints it. If the store cannot be read (database down), the last keys
 * read stay in force.
 */
export class KeyRegistry {
  private byHash = new Map<string, KeyRecord>();
  private fileStamp = '';
  private timer: NodeJS.Timeout | null = null;
  /** The reload under way, and the one queued to start after it (shared by every miss meanwhile). */
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  constructor(
    private readonly store: KeyStore,
    private readonly secret: Buffer,
  ) {}

  async start(reloadMs: number): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.reloadStartingNow().catch(() => undefined), reloadMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  get size(): number {
    return this.byHash.size;
  }

  private async reload(): Promise<void> {
    const stamp = await this.store.stamp();
    if (stamp === this.fileStamp) return;
    const keys = await this.store.list();
    this.byHash = new Map(keys.filter((k) => !k.revoked).map((k) => [k.hash, k]));
    this.fileStamp = stamp;
  }

  /** The live record of a presented key, or null; an unknown well-formed key rereads the store once. */
  async lookup(presented: string): Promise<KeyRecord | null> {
    if (!isWellFormedKey(presented)) return null;
    const hash = hashKey(this.secret, presented);
    if (!this.byHash.has(hash)) await this.reloadStartingNow().catch(() => undefined);
    const record = this.byHash.get(hash);
    if (!record) return null;
    // The map lookup matched; compare again in constant time so no early-exit timing remains.
    return timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex')) ? record : null;
  }

  /**
   * A reload that begins no earlier than this call, so it sees every key written before it. Misses
   * arriving together share one: at most one reload runs and one waits, however many keys are
   * guessed at once (and each reload first reads only the store's cheap stamp).
   */
  private reloadStartingNow(): Promise<void> {
    if (!this.running) {
      this.running = this.reload().finally(() => (this.running = null));
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.reloadStartingNow();
      });
    return this.queued;
  }
}
