// Writing a calculation's answer: JSON.stringify against the serializer the service compiles from
// the response schema, on the same answer, in interleaved rounds.
import { type CalculateResponseBody } from '../../src/contract/responses.js';
import { serializeCalculate } from '../../src/http/serializers.js';
import { interleaved } from './stats.js';

/** Interleaved rounds each way. */
export const SERIALIZE_ROUNDS = 9;

export interface SerializeFigures {
  bytes: number;
  /** µs per answer, medians of SERIALIZE_ROUNDS rounds. */
  json_stringify: number;
  compiled: number;
}

/** Medians of interleaved rounds of `count` writes of one answer each way. */
export async function serializeTimes(body: CalculateResponseBody, count: number): Promise<SerializeFigures> {
  const writes = (write: (b: CalculateResponseBody) => string) => () => {
    for (let i = 0; i < count; i++) write(body);
  };
  const { ms } = await interleaved({ plain: writes(JSON.stringify), compiled: writes(serializeCalculate) }, SERIALIZE_ROUNDS);
  const perAnswer = (total: number) => (total * 1000) / count;
  return { bytes: Buffer.byteLength(JSON.stringify(body)), json_stringify: perAnswer(ms.plain!), compiled: perAnswer(ms.compiled!) };
}
