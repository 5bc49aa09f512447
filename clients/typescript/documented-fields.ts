// Reads every field of an answer against the document schema.d.ts is generated from (npm test keeps
// the two equal): each field the server sent must be declared where it arrived, each required one
// present, each enum value documented, each number finite. TypeScript's types vanish at run time;
// this is how the smoke script checks that the types describe everything the client receives.

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
}

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v === 'object' ? 'object' : typeof v;

export class DocumentedFields {
  fields = 0;

  constructor(private readonly document: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }) {}

  /** Problems of the answer `value` to `method path` with `status`; none when every field is documented. */
  check(method: string, path: string, status: number, value: unknown): string[] {
    const response = this.document.paths[path]?.[method]?.responses[String(status)] as { content?: Record<string, { schema: Schema }> } | undefined;
    const schema = response?.content?.['application/json']?.schema;
    if (!schema) return [`${method.toUpperCase()} ${path} ${status}: not documented`];
    return this.walk(schema, value, '');
  }

  private resolve(schema: Schema): Schema {
    if (!schema.$ref) return schema;
    let target: unknown = this.document;
    for (const part of schema.$ref.replace(/^#\//, '').split('/')) target = (target as Record<string, unknown>)[part];
    return this.resolve(target as Schema);
  }

  private walk(raw: Schema, value: unknown, at: string): string[] {
    const schema = this.resolve(raw);
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) {
      // The branch the value fits; otherwise the problems of the nearest one.
      const fields = this.fields;
      const tries = branches.map((branch) => {
        this.fields = fields;
        return { problems: this.walk(branch, value, at), fields: this.fields };
      });
      const best = tries.reduce((a, b) => (b.problems.length < a.problems.length ? b : a));
      this.fields = best.fields;
      return best.problems;
    }
    const actual = typeOf(value);
    const types = schema.type === undefined ? [] : [schema.type].flat();
    if (types.length > 0 && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
      return [`${at}: a ${actual}, documented ${types.join('|')}`];
    }
    if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not a documented value`];
    if ('const' in schema && schema.const !== value) return [`${at}: ${JSON.stringify(value)}, documented ${JSON.stringify(schema.const)}`];
    if (Array.isArray(value)) return value.flatMap((item, i) => (schema.items ? this.walk(schema.items, item, `${at}[${i}]`) : [`${at}: items undocumented`]));
    if (value !== null && typeof value === 'object') return this.object(schema, value as Record<string, unknown>, at);
    this.fields++;
    return typeof value === 'number' && !Number.isFinite(value) ? [`${at}: ${value} is not finite`] : [];
  }

  private object(schema: Schema, value: Record<string, unknown>, at: string): string[] {
    const problems = (schema.required ?? []).filter((name) => !(name in value)).map((name) => `${at}.${name}: required, not sent`);
    for (const [name, field] of Object.entries(value)) {
      const declared =
        schema.properties?.[name] ??
        Object.entries(schema.patternProperties ?? {}).find(([pattern]) => new RegExp(pattern, 'u').test(name))?.[1] ??
        (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (declared) problems.push(...this.walk(declared, field, `${at}.${name}`));
      else if (schema.additionalProperties !== true) problems.push(`${at}.${name}: sent but not documented`);
    }
    return problems;
  }
}
