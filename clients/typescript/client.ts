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

/** Uploads a CSV of daily prices (wide or long layout); the answer holds the dataset id. */
export function uploadPrices(client: RiskClient, csv: Blob, fileName = 'prices.csv') {
  return client.POST('/api/v1/risk/datasets/upload', {
    body: { file: '' },
    bodySerializer: () => {
      const form = new FormData();
      form.set('file', csv, fileName);
      return form;
    },
  });
}
