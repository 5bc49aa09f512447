import { type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { validationError, type ValidationIssue } from './errors.js';

function toLoc(path: string): (string | number)[] {
  const parts = path
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return ['body', ...parts.map((p) => (/^\d+$/.test(p) ? Number(p) : p))];
}

/** Compiles a schema once; the returned function checks a value or throws 422 VALIDATION_ERROR. */
export function compileValidator<T extends TSchema>(schema: T): (value: unknown) => Static<T> {
  const compiled = TypeCompiler.Compile(schema);
  return (value: unknown) => {
    if (compiled.Check(value)) return value;
    const seen = new Set<string>();
    const errors: ValidationIssue[] = [];
    for (const e of compiled.Errors(value)) {
      if (seen.has(e.path) || errors.length >= 20) continue;
      seen.add(e.path);
      const unknownField = e.type === ValueErrorType.ObjectAdditionalProperties;
      errors.push({
        loc: toLoc(e.path),
        msg: unknownField ? 'unknown field' : e.message,
        type: unknownField ? 'extra_forbidden' : ValueErrorType[e.type],
      });
    }
    throw validationError(errors);
  };
}
