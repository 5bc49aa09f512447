import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_TTL_MS } from '../../contract/dataset-schemas.js';
import { ApiError, validationError } from '../../contract/errors.js';
import { QuotaExceeded, type Quota } from '../../datasets/quota.js';
import { guardBody } from '../body.js';
import { limitedRoute } from '../limited-route.js';
import { MULTIPART_OVERHEAD, receiveDataset } from '../multipart.js';
import { datasetAnswer } from './dataset-route.js';

const keyError = (msg: string) => validationError([{ loc: ['header', 'idempotency-key'], msg, type: 'value_error' }]);

/** The owner's quota, in the body so a client can tell what to delete (review M5). */
function quotaError(e: QuotaExceeded): ApiError {
  const extra = { datasets: e.usage.count, max_datasets: e.quota.maxDatasets, stored_bytes: e.usage.bytes, max_stored_bytes: e.quota.maxBytes };
  return e.kind === 'count'
    ? new ApiError('DATASET_QUOTA_EXCEEDED', `The owner has ${e.usage.count} datasets, the most MAX_DATASETS_PER_OWNER allows; delete some first.`, extra)
    : new ApiError(
        'STORAGE_QUOTA_EXCEEDED',
        `The dataset needs ${e.needed} bytes; the owner has ${Math.max(0, e.quota.maxBytes - e.usage.bytes)} of MAX_STORED_BYTES_PER_OWNER left.`,
        { ...extra, dataset_bytes: e.needed },
      );
}

/** POST /api/v1/risk/datasets/upload; with an Idempotency-Key, the same file again answers the same dataset. */
export const uploadRoute = limitedRoute('upload', async (ctx, ex, key) => {
  const { maxUploadBytes, maxSymbols } = ctx.config;
  const sent = ex.head.idempotencyKeys;
  if (sent.length > 1) throw keyError(`sent ${sent.length} times: send it once`);
  const idempotencyKey = sent[0] ?? null;
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) throw keyError('1 to 255 printable ASCII characters');
  guardBody(ex, 'multipart/form-data', maxUploadBytes + MULTIPART_OVERHEAD, `The file exceeds MAX_UPLOAD_BYTES (${maxUploadBytes} bytes).`);
  const { dataset, fileSha256 } = await receiveDataset(ex, { maxBytes: maxUploadBytes, maxSymbols });
  const quota: Quota = { maxDatasets: ctx.config.maxDatasetsPerOwner, maxBytes: ctx.config.maxStoredBytesPerOwner };
  const outcome = await (
    idempotencyKey === null
      ? ctx.datasets.save(key.owner, dataset, quota).then((stored) => ({ kind: 'stored' as const, stored }))
      : ctx.datasets.saveOnce(key.owner, dataset, { key: idempotencyKey, fileSha256, ttlMs: IDEMPOTENCY_KEY_TTL_MS }, quota)
  ).catch((e: unknown) => {
    throw e instanceof QuotaExceeded ? quotaError(e) : e;
  });
  if (outcome.kind === 'conflict') throw keyError('already used with a different file in the last 24 hours: use a new key');
  const { stored } = outcome;
  ex.log.info(
    { key_id: key.id, dataset_id: stored.id, symbols: stored.dataset.symbols.length, rows: stored.dataset.dates.length, replayed: outcome.kind === 'replayed' },
    'dataset uploaded',
  );
  ex.send(200, await datasetAnswer(stored));
});
