// A typed client of the Portfolio Risk Service: openapi-fetch over the types openapi-typescript
// generates from the service's OpenAPI document (schema.d.ts; regenerate with the README's command).
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type RiskClient = Client<paths>;
export type Schemas = components['schemas'];

/** A client for the service at `baseUrl` (e.g. http://localhost:8080), sending `apiKey` on every request. */
export function riskClient(baseUrl: string, apiKey: string): RiskClient {
  return createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });
}

/**
 * Uploads a CSV of daily prices (wide or long layout); the answer holds the dataset id. With an
 * `idempotencyKey`, a retry of the same file answers the dataset stored the first time.
 */
export function uploadPrices(client: RiskClient, csv: Blob, options: { fileName?: string; idempotencyKey?: string } = {}) {
  return client.POST('/api/v1/risk/datasets/upload', {
    params: options.idempotencyKey === undefined ? {} : { header: { 'Idempotency-Key': options.idempotencyKey } },
    body: { file: '' },
    bodySerializer: () => {
      const form = new FormData();
      form.set('file', csv, options.fileName ?? 'prices.csv');
      return form;
    },
  });
}
