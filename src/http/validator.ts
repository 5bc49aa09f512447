import { type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
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

/** How many of an object's keys a union member does not declare (0 for a member that is no object). */
function foreignKeys(member: TSchema | undefined, value: unknown): number {
  const declared = (member as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!declared || value === null || typeof value !== 'object' || Array.isArray(value)) return 0;
  return Object.keys(value).filter((k) => !(k in declared)).length;
}

/**
 * The errors of a value, a union's (a position is a stock, cash or an option) replaced by those of
 * the member the value comes closest to — the one whose fields it uses (fewest keys the member does
 * not declare), then the one with the fewest errors — so that a stock position's bad quantity is
 * reported at its quantity, and an option's bad strike at its strike however many fields are bad,
 * not as "expected union value" at the item.
 */
function* closestErrors(errors: Iterable<ValueError>): Generator<ValueError> {
  for (const e of errors) {
    // An enum (a union of literals) keeps its one issue, whose message lists the values.
    if (e.type !== ValueErrorType.Union || e.errors.length === 0 || allowedValues(e.schema) !== undefined) {
      yield e;
      continue;
    }
    const anyOf = (e.schema as { anyOf?: TSchema[] }).anyOf ?? [];
    const members = e.errors.map((it, i) => ({ errors: [...closestErrors(it)], foreign: foreignKeys(anyOf[i], e.value) }));
    const closest = members.reduce((best, m) =>
      m.foreign < best.foreign || (m.foreign === best.foreign && m.errors.length < best.errors.length) ? m : best,
    ).errors;
    if (closest.length === 0) yield e;
    else yield* closest;
  }
}

/** Compiles a schema once; the returned function checks a value or throws 422 VALIDATION_ERROR. */
export function compileValidator<T extends TSchema>(schema: T): (value: unknown) => Static<T> {
  const compiled = TypeCompiler.Compile(schema);
  return (value: unknown) => {
    if (compiled.Check(value)) return value;
    const seen = new Set<string>();
    const errors: ValidationIssue[] = [];
    for (const e of closestErrors(compiled.Errors(value))) {
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
