import { Type, type Static } from '@sinclair/typebox';

/** Datasets a listing page holds when `limit` is not given, and at most. */
export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;

export const DatasetListQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT, description: `Datasets per page, 1 to ${LIST_MAX_LIMIT}.` }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The previous page’s next_cursor: the page after it.' })),
  },
  { additionalProperties: false },
);

export const DatasetListItem = Type.Object(
  {
    dataset_id: Type.String({ description: 'Id of the dataset.' }),
    created_at: Type.String({ format: 'date-time', description: 'When it was uploaded (UTC).' }),
    symbol_count: Type.Integer({ minimum: 1, description: 'Symbols it holds (GET /datasets/{id} lists them).' }),
    rows: Type.Integer({ minimum: 1, description: 'Dates it holds.' }),
  },
  { description: 'One dataset of the caller’s owner.' },
);

export const DatasetListResponse = Type.Object({
  status: Type.Literal('success', { description: 'Always "success" on a 200.' }),
  datasets: Type.Array(DatasetListItem, { description: 'The caller’s owner’s datasets, newest first (ties: by id, descending).' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next page; null on the last page. Uploads made meanwhile never shift a page: they are newer than any cursor.',
  }),
});
export type DatasetListBody = Static<typeof DatasetListResponse>;
