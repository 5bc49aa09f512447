// Writing a calculation's answer: JSON.stringify against the serializer the service compiles from
// the response schema, on the same answer, in interleaved rounds.
import { type CalculateResponseBody } from '../../src/contract/responses.js';
import { serializeCalculate } from '../../src/http/serializers.js';
import { median } from './stats.js';

export interface SerializeFigures {
  bytes: number;
  /** µs per answer, medians of 9 rounds. */
  json_stringify: number;
  compiled: number;
}

/** Medians of interleaved rounds of `count` writes of one answer each way. */
export function serializeTimes(body: CalculateResponseBody, count: number): SerializeFigures {
  const plain: number[] = [];
  const compiled: number[] = [];
  for (let round = 0; round < 9; round++) {
    let start = performance.now();
    for (let i = 0; i < count; i++) JSON.stringify(body);
    plain.push(((performance.now() - start) * 1000) / count);
    start = performance.now();
    for (let i = 0; i < count; i++) serializeCalculate(body);
    compiled.push(((performance.now() - start) * 1000) / count);
  }
  return { bytes: Buffer.byteLength(JSON.stringify(body)), json_stringify: median(plain), compiled: median(compiled) };
}
