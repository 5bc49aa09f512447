import { summarize } from '../../datasets/summary.js';
import { type StoredDataset } from '../../datasets/dataset-file.js';
import { datasetQualityInTurns } from '../../datasets/quality.js';
import { type Handler } from '../context.js';
import { ApiError } from '../../contract/errors.js';
import { admit } from '../limited-route.js';

/**
 * Each dataset's answer (upload, GET), serialized once and reused: a summary can run to megabytes
 * (5,000 names) and GET has no rate limit (review M4). Kept beside the decoded dataset, in a
 * WeakMap, so it leaves memory when the store drops the dataset (on delete, or evicted); and it is
 * only reached through a dataset the store has just found for this owner, so a deleted dataset's
 * answer is never served.
 */
const answers = new WeakMap<StoredDataset, string>();

export async function datasetAnswer(stored: StoredDataset): Promise<string> {
  let json = answers.get(stored);
  if (json === undefined) {
    // The quality report first, with the event loop free between its slices (review L7): summarize finds it.
    await datasetQualityInTurns(stored.dataset);
    json = JSON.stringify({ status: 'success', dataset_id: stored.id, dataset: summarize(stored.dataset) });
    answers.set(stored, json);
  }
  return json;
}

/** GET /api/v1/risk/datasets/{id} */
export const getDatasetRoute: Handler = async (ctx, ex, params) => {
  const { key } = await admit(ctx, ex, null);
  const id = params.id ?? '';
  const stored = await ctx.datasets.load(id, key.owner);
  if (!stored) throw new ApiError('DATASET_NOT_FOUND', `No dataset ${id.slice(0, 64)}.`);
  ex.send(200, await datasetAnswer(stored));
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
