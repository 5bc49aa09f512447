// The 200 answers of the calculation endpoints, serialised by functions compiled once from their
// TypeBox response schemas (the same schemas that document them in OpenAPI): about half the time
// of JSON.stringify on a calculation's answer, and a property outside the schema is never written.
// Keys come out in the schema's order.
import { type Static, type TSchema } from '@sinclair/typebox';
import build from 'fast-json-stringify';
import { BacktestResponse } from '../contract/backtest-schemas.js';
import { BatchResponse, CalculateResponse } from '../contract/responses.js';
import { StressResponse } from '../contract/stress-schemas.js';

export type Serializer<T extends TSchema> = (value: Static<T>) => string;

/** Compiles a response schema into its serializer (a plain JSON copy: TypeBox's symbols dropped). */
export function compileSerializer<T extends TSchema>(schema: T): Serializer<T> {
  return build(JSON.parse(JSON.stringify(schema)) as Parameters<typeof build>[0]) as Serializer<T>;
}

export const serializeCalculate = compileSerializer(CalculateResponse);
export const serializeBatch = compileSerializer(BatchResponse);
export const serializeBacktest = compileSerializer(BacktestResponse);
export const serializeStress = compileSerializer(StressResponse);
