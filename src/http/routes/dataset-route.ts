import { summarize } from '../../datasets/dataset.js';
import { type Handler } from '../context.js';
import { ApiError } from '../../contract/errors.js';
import { admit } from '../limited-route.js';

/** GET /api/v1/risk/datasets/{id} */
export const getDatasetRoute: Handler = async (ctx, ex, params) => {
  const { key } = await admit(ctx, ex, null);
  const id = params.id ?? '';
  const stored = await ctx.datasets.load(id, key.owner);
  if (!stored) throw new ApiError('DATASET_NOT_FOUND', `No dataset ${id.slice(0, 64)}.`);
  ex.json(200, { status: 'success', dataset_id: stored.id, dataset: summarize(stored.dataset) });
};

/** DELETE /api/v1/risk/datasets/{id} */
export const deleteDatasetRoute: Handler = async (ctx, ex, params) => {
  const { key } = await admit(ctx, ex, null);
  const id = params.id ?? '';
  if (!(await ctx.datasets.delete(id, key.owner))) throw new ApiError('DATASET_NOT_FOUND', `No dataset ${id.slice(0, 64)}.`);
  ctx.calculator.estimates.forgetDataset(id);
  ex.log.info({ key_id: key.id, dataset_id: id }, 'dataset deleted');
  ex.json(200, { status: 'success', dataset_id: id });
};
