import { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_KEY_TTL_MS } from '../../contract/dataset-schemas.js';
import { validationError } from '../../contract/errors.js';
import { summarize } from '../../datasets/dataset.js';
import { guardBody } from '../body.js';
import { limitedRoute } from '../limited-route.js';
import { MULTIPART_OVERHEAD, receiveDataset } from '../multipart.js';

const keyError = (msg: string) => validationError([{ loc: ['header', 'idempotency-key'], msg, type: 'value_error' }]);

/** POST /api/v1/risk/datasets/upload; with an Idempotency-Key, the same file again answers the same dataset. */
export const uploadRoute = limitedRoute('upload', async (ctx, ex, key) => {
  const { maxUploadBytes, maxSymbols } = ctx.config;
  const idempotencyKey = ex.head.idempotencyKey;
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) throw keyError('1 to 255 printable ASCII characters');
  guardBody(ex, 'multipart/form-data', maxUploadBytes + MULTIPART_OVERHEAD, `The file exceeds MAX_UPLOAD_BYTES (${maxUploadBytes} bytes).`);
  const { dataset, fileSha256 } = await receiveDataset(ex, { maxBytes: maxUploadBytes, maxSymbols });
  const outcome =
    idempotencyKey === null
      ? { kind: 'stored' as const, stored: await ctx.datasets.save(key.owner, dataset) }
      : await ctx.datasets.saveOnce(key.owner, dataset, { key: idempotencyKey, fileSha256, ttlMs: IDEMPOTENCY_KEY_TTL_MS });
  if (outcome.kind === 'conflict') throw keyError('already used with a different file in the last 24 hours: use a new key');
  const { stored } = outcome;
  ex.log.info(
    { key_id: key.id, dataset_id: stored.id, symbols: stored.dataset.symbols.length, rows: stored.dataset.dates.length, replayed: outcome.kind === 'replayed' },
    'dataset uploaded',
  );
  ex.json(200, { status: 'success', dataset_id: stored.id, dataset: summarize(stored.dataset) });
});
