import { type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { validationError, type ValidationIssue } from '../contract/errors.js';

/** Most issues one answer lists. */
const MAX_ISSUES = 20;

/** A JSON pointer as a location: array indices as numbers, object keys (even "12") as strings. */
function toLoc(path: string, value: unknown): (string | number)[] {
  const loc: (string | number)[] = ['body'];
  let at: unknown = value;
  for (const raw of path.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const index = Array.isArray(at) && /^\d+$/.test(part);
    loc.push(index ? Number(part) : part);
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined;
  }
  return loc;
}

/** For a union of string literals (an enum), the message names the values it allows. */
function allowedValues(schema: TSchema): string | undefined {
  const members = (schema as { anyOf?: { const?: unknown }[] }).anyOf;
  if (!members?.every((m) => typeof m.const === 'string')) return undefined;
  return `must be one of: ${members.map((m) => JSON.stringify(m.const)).join(', ')}`;
}

/** Compiles a schema once; the returned function checks a value or throws 422 VALIDATION_ERROR. */
export function compileValidator<T extends TSchema>(schema: T): (value: unknown) => Static<T> {
  const compiled = TypeCompiler.Compile(schema);
  return (value: unknown) => {
    if (compiled.Check(value)) return value;
    const seen = new Set<string>();
    const errors: ValidationIssue[] = [];
    for (const e of compiled.Errors(value)) {
      if (errors.length >= MAX_ISSUES) break;
      if (seen.has(e.path)) continue;
      seen.add(e.path);
      const unknownField = e.type === ValueErrorType.ObjectAdditionalProperties;
      errors.push({
        loc: toLoc(e.path, value),
        msg: unknownField ? 'unknown field' : (allowedValues(e.schema) ?? e.message),
        type: unknownField ? 'extra_forbidden' : ValueErrorType[e.type],
      });
    }
    throw validationError(errors);
  };
}
