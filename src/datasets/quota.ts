/** Per-owner storage limits (review M5): how many datasets and how many stored bytes. */
export interface Quota {
  maxDatasets: number;
  maxBytes: number;
}

/** What an owner has stored: datasets and the bytes of their encodings (file or bytea). */
export interface Usage {
  count: number;
  bytes: number;
}

/** An upload over the owner's quota; nothing was stored. */
export class QuotaExceeded extends Error {
  constructor(
    readonly kind: 'count' | 'bytes',
    readonly usage: Usage,
    readonly quota: Quota,
    readonly needed: number,
  ) {
    super(kind === 'count' ? 'dataset count quota' : 'stored bytes quota');
  }
}

/** Throws QuotaExceeded when one more dataset of `bytes` would take the owner over its quota. */
export function checkQuota(usage: Usage, bytes: number, quota: Quota | undefined): void {
  if (!quota) return;
  if (usage.count + 1 > quota.maxDatasets) throw new QuotaExceeded('count', usage, quota, bytes);
  if (usage.bytes + bytes > quota.maxBytes) throw new QuotaExceeded('bytes', usage, quota, bytes);
}
