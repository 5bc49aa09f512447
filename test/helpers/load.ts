import autocannon from 'autocannon';

/** Closed-loop load of one calculate request body with one key (autocannon options on top). */
export function loadCalculate(base: string, key: string, body: string, options: Partial<autocannon.Options>): Promise<autocannon.Result> {
  return autocannon({
    url: `${base}/api/v1/risk/calculate`,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    ...options,
  });
}
