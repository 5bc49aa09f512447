import { summarize } from '../../datasets/dataset.js';
import { guardBody } from '../body.js';
import { limitedRoute } from '../limited-route.js';
import { MULTIPART_OVERHEAD, receiveDataset } from '../multipart.js';

/** POST /api/v1/risk/datasets/upload */
export const uploadRoute = limitedRoute('upload', async (ctx, ex, key) => {
  const { maxUploadBytes, maxSymbols } = ctx.config;
  guardBody(ex, 'multipart/form-data', maxUploadBytes + MULTIPART_OVERHEAD, `The file exceeds MAX_UPLOAD_BYTES (${maxUploadBytes} bytes).`);
  const dataset = await receiveDataset(ex, { maxBytes: maxUploadBytes, maxSymbols });
  const stored = await ctx.datasets.save(key.owner, dataset);
  ex.log.info({ key_id: key.id, dataset_id: stored.id, symbols: dataset.symbols.length, rows: dataset.dates.length }, 'dataset uploaded');
  ex.json(200, { status: 'success', dataset_id: stored.id, dataset: summarize(dataset) });
});
