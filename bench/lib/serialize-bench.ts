// Writing a calculation's answer: JSON.stringify against the serializer the service compiles from
// the response schema, in interleaved rounds. Every write is of an answer of its own, its figures
// moved in the last digits: the engine's figures are new in every answer, and writing one answer
// over and over measures V8's cache of number strings instead (the compiled serializer turns each
// number into a string of its own, so it gained from that cache: about twice as fast as
// JSON.stringify on one repeated answer, slower on fresh ones).
import { type CalculateResponseBody } from '../../src/contract/responses.js';
import { serializeCalculate } from '../../src/http/serializers.js';
import { median } from './stats.js';

/** Interleaved rounds each way. */
export const SERIALIZE_ROUNDS = 9;

export interface SerializeFigures {
  bytes: number;
  /** µs per answer, medians of SERIALIZE_ROUNDS rounds. */
  json_stringify: number;
  compiled: number;
}

/** `count` copies of the answer `text`, each figure that is not a whole number scaled by 1 + k·1e-13. */
function freshAnswers(text: string, count: number, from: number): CalculateResponseBody[] {
  return Array.from({ length: count }, (_, i) => {
    const scale = 1 + (from + i + 1) * 1e-13;
    return JSON.parse(text, (_key, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? v * scale : v)) as CalculateResponseBody;
  });
}

/** Medians of interleaved rounds (the order swapped every round) of `count` fresh answers written each way. */
export function serializeTimes(body: CalculateResponseBody, count: number): SerializeFigures {
  const ways: Record<'json_stringify' | 'compiled', (b: CalculateResponseBody) => string> = { json_stringify: JSON.stringify, compiled: serializeCalculate };
  const times: Record<keyof typeof ways, number[]> = { json_stringify: [], compiled: [] };
  const text = JSON.stringify(body);
  let made = 0;
  for (let r = 0; r < SERIALIZE_ROUNDS; r++) {
    const order = r % 2 === 0 ? (['json_stringify', 'compiled'] as const) : (['compiled', 'json_stringify'] as const);
    for (const way of order) {
      const answers = freshAnswers(text, count, made);
      made += count;
      const write = ways[way];
      const start = performance.now();
      for (const a of answers) write(a);
      times[way].push(((performance.now() - start) * 1000) / count);
    }
  }
  return { bytes: Buffer.byteLength(text), json_stringify: median(times.json_stringify), compiled: median(times.compiled) };
}
