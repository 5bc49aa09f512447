// Every answer the HTTP tests receive through `call` is checked against the OpenAPI document the
// server serves: its status must be documented for the operation, its JSON body must match the
// documented schema, and it must carry the documented X-Request-Id. So the document and the server
// cannot drift apart unnoticed.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { serviceOpenApi } from '../../src/contract/openapi.js';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };

// Responses do not depend on MAX_SIMULATIONS or the engine version, which only the requests name.
const doc = JSON.parse(serviceOpenApi(1e7, 'test')) as Doc;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addFormat('binary', true);
ajv.addFormat('iso4217', /^[A-Z]{3}$/);

const compiled = new Map<string, ValidateFunction>();
function validatorOf(name: string): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    v = ajv.compile(doc.components.schemas[name]!);
    compiled.set(name, v);
  }
  return v;
}

const templates = Object.keys(doc.paths).map((template) => ({
  template,
  pattern: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+') + '$'),
}));

/** Paths the service serves that are pages, not API: not in the document. */
const PAGES = /^\/(docs|console)(\/|$)/;

/** Throws when the answer to `method path` is not what the document says it can be. */
export function checkAgainstDocument(method: string, path: string, reply: { status: number; headers: Headers; body: unknown; text: string }): void {
  const bare = path.split('?')[0]!;
  if (PAGES.test(bare)) return;
  const where = `${method} ${bare.slice(0, 100)} → ${reply.status}`;
  const found = templates.find((t) => t.pattern.test(bare));
  const operation = found ? doc.paths[found.template]![method.toLowerCase()] : undefined;
  if (!operation) {
    // Unknown paths and methods answer the shared error shape: 404 NOT_FOUND, 405 METHOD_NOT_ALLOWED.
    if (method === 'HEAD') return;
    if (![404, 405].includes(reply.status)) throw new Error(`${where}: an undocumented route answered other than 404/405`);
    return checkBody(where, 'Error', reply.body);
  }
  const documented = operation.responses[String(reply.status)];
  if (!documented) throw new Error(`${where}: status not documented for this operation (documented: ${Object.keys(operation.responses).join(', ')})`);
  if (method === 'HEAD') return;
  const json = documented.content?.['application/json'];
  if (!json) return;
  const ref = json.schema.$ref;
  if (ref) checkBody(where, ref.split('/').pop()!, reply.body);
}

function checkBody(where: string, schema: string, body: unknown): void {
  const validate = validatorOf(schema);
  if (body === undefined) throw new Error(`${where}: documented as JSON (${schema}) but the body is not JSON`);
  if (!validate(body)) {
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new Error(`${where}: body does not match ${schema}: ${problems.join('; ')}`);
  }
}
