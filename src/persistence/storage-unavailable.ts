/** The dataset or key store cannot answer now (disk full, I/O error, database down): 503, not 500. */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}

const UNAVAILABLE_FS_CODES = new Set(['ENOSPC', 'EIO', 'EDQUOT', 'EROFS']);

/** Errors that mean the storage cannot serve the request now (the service answers 503). */
export function isStorageUnavailable(e: unknown): boolean {
  if (e instanceof StorageUnavailableError) return true;
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && UNAVAILABLE_FS_CODES.has(code);
}
