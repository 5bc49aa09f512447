// The 200 answers of the calculation endpoints, serialised by functions compiled once from their
// TypeBox response schemas (the same schemas that document them in OpenAPI): about half the time
// of JSON.stringify on a calculation's answer, and a property outside the schema is never written.
// Required properties come first, in the schema's order, then the optional ones present.
import { type Static, type TSchema } from '@sinclair/typebox';
import build from 'fast-json-stringify';
import { BacktestResponse } from '../contract/backtest-schemas.js';
import { BatchResponse, CalculateResponse } from '../contract/responses.js';
import { StressResponse } from '../contract/stress-schemas.js';
import { openApiSchema } from '../contract/openapi.js';

type Serializer<T extends TSchema> = (value: Static<T>) => string;

type JsonSchema = { [key: string]: unknown };

/** A record with string keys (TypeBox: patternProperties "^(.*)$") as additionalProperties: the
 * pattern's `.` matches no line terminator, so a symbol holding one would be dropped silently. */
function recordsAsAdditionalProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(recordsAsAdditionalProperties);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    const patterns = key === 'patternProperties' ? Object.entries(value as JsonSchema) : [];
    if (patterns.length === 1 && patterns[0]![0] === '^(.*)$') out.additionalProperties = recordsAsAdditionalProperties(patterns[0]![1]);
    else out[key] = recordsAsAdditionalProperties(value);
  }
  return out;
}

/** Compiles a response schema into its serializer, from the plain JSON Schema the OpenAPI document shows. */
function compileSerializer<T extends TSchema>(schema: T): Serializer<T> {
  const plain = recordsAsAdditionalProperties(openApiSchema(schema));
  return build(plain as Parameters<typeof build>[0]) as Serializer<T>;
}

export const serializeCalculate = compileSerializer(CalculateResponse);
export const serializeBatch = compileSerializer(BatchResponse);
export const serializeBacktest = compileSerializer(BacktestResponse);
export const serializeStress = compileSerializer(StressResponse);
