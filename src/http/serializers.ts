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

/**
 * The plain JSON Schema rewritten where fast-json-stringify would otherwise write a value wrongly
 * or slowly:
 * - A record with string keys (TypeBox: patternProperties "^(.*)$") becomes additionalProperties:
 *   the pattern's `.` matches no line terminator, so a symbol holding one would be dropped silently.
 * - A union of bare types (`anyOf: [{type: number}, {type: null}]`, a nullable figure or name)
 *   becomes one `type` list: for an `anyOf` the serializer runs a schema validator on the value to
 *   pick its branch, which on a live risk message took longer than writing it. A branch's `enum`
 *   and `description` go: the serializer writes a string as it is either way.
 */
export function serializerSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(serializerSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    const patterns = key === 'patternProperties' ? Object.entries(value as JsonSchema) : [];
    const types = key === 'anyOf' ? bareTypes(value) : null;
    if (patterns.length === 1 && patterns[0]![0] === '^(.*)$') out.additionalProperties = serializerSchema(patterns[0]![1]);
    else if (types) out.type = types;
    else out[key] = serializerSchema(value);
  }
  return out;
}

const BARE_BRANCH_KEYS = new Set(['type', 'enum', 'description']);

/** The types of an `anyOf` whose every branch is `{type: <one primitive type>}` (with at most an
 * `enum` and a `description`), else null. */
function bareTypes(branches: unknown): string[] | null {
  if (!Array.isArray(branches) || branches.length < 2) return null;
  const types = branches.map((b) => {
    const keys = b !== null && typeof b === 'object' ? Object.keys(b as JsonSchema) : [];
    const type = keys.every((k) => BARE_BRANCH_KEYS.has(k)) ? (b as JsonSchema).type : undefined;
    return typeof type === 'string' && type !== 'object' && type !== 'array' ? type : null;
  });
  return types.every((t): t is string => t !== null) ? types : null;
}

/** Compiles a response schema into its serializer, from the plain JSON Schema the OpenAPI document shows. */
function compileSerializer<T extends TSchema>(schema: T): Serializer<T> {
  return build(serializerSchema(openApiSchema(schema)) as Parameters<typeof build>[0]) as Serializer<T>;
}

export const serializeCalculate = compileSerializer(CalculateResponse);
export const serializeBatch = compileSerializer(BatchResponse);
export const serializeBacktest = compileSerializer(BacktestResponse);
export const serializeStress = compileSerializer(StressResponse);
