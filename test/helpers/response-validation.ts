// Every answer the HTTP tests receive through `call` is checked against the OpenAPI document the
// server serves: its status must be documented for the operation, its Content-Type must be one
// the response declares, its JSON body must match the documented schema, and every header the
// response declares `required` (X-Request-Id, RateLimit, Retry-After, Allow) must be there. So the
// document and the server cannot drift apart unnoticed.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { serviceOpenApi } from '../../src/contract/openapi.js';

type Ref = { $ref: string };
interface Header {
  required?: boolean;
  schema: { type?: string };
}
interface Response {
  headers?: Record<string, Ref | Header>;
  content?: Record<string, { schema: Ref | object }>;
}
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: { schemas: Record<string, object>; headers: Record<string, Header>; responses: Record<string, Response> };
}
interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

// Responses do not depend on MAX_SIMULATIONS or the engine version, which only the requests name.
const doc = JSON.parse(serviceOpenApi(1e7, 'test')) as Doc;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addFormat('binary', true);
ajv.addFormat('iso4217', /^[A-Z]{3}$/);

const compiled = new Map<object, ValidateFunction>();
/** The validator of a response's schema: a component by its $ref, or the schema itself. */
function validatorOf(schema: Ref | object): ValidateFunction {
  const target = '$ref' in schema ? doc.components.schemas[(schema as Ref).$ref.split('/').pop()!]! : schema;
  let v = compiled.get(target);
  if (!v) {
    v = ajv.compile(target);
    compiled.set(target, v);
  }
  return v;
}

const templates = Object.keys(doc.paths).map((template) => ({
  template,
  pattern: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+') + '$'),
}));

/** Paths the service serves that are pages, not API: not in the document. */
const PAGES = /^\/(docs|console)(\/|$)/;

/** The documented response for `method path` answering `status`, or why there is none. */
function documentedResponse(method: string, bare: string, status: number): Response | string {
  const found = templates.find((t) => t.pattern.test(bare));
  const operation = found ? doc.paths[found.template]![method.toLowerCase()] : undefined;
  if (operation) {
    const documented = operation.responses[String(status)];
    return documented ?? `status not documented for this operation (documented: ${Object.keys(operation.responses).join(', ')})`;
  }
  // No operation: an unknown path answers 404 NOT_FOUND, a known path's other methods 405 (with Allow).
  if (status === 404 && !found) return doc.components.responses.NotFound!;
  if (status === 405 && found) return doc.components.responses.MethodNotAllowed!;
  return found ? `a method the path does not document answered ${status}, not 405` : `an undocumented path answered ${status}, not 404`;
}

/** Throws when the answer to `method path` is not what the document says it can be. */
export function checkAgainstDocument(method: string, path: string, reply: Reply): void {
  const bare = path.split('?')[0]!;
  if (PAGES.test(bare)) return;
  const where = `${method} ${bare.slice(0, 100)} → ${reply.status}`;
  // HEAD is answered by uWebSockets itself from the GET route, and carries no body to check.
  if (method === 'HEAD') return;
  const documented = documentedResponse(method, bare, reply.status);
  if (typeof documented === 'string') throw new Error(`${where}: ${documented}`);
  checkHeaders(where, documented, reply.headers);
  const media = (reply.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const content = documented.content ?? {};
  if (!(media in content)) throw new Error(`${where}: Content-Type ${media || '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`);
  if (media === 'application/json') checkBody(where, content[media]!.schema, reply.body);
}

function checkHeaders(where: string, response: Response, headers: Headers): void {
  for (const [name, ref] of Object.entries(response.headers ?? {})) {
    const header = '$ref' in ref ? doc.components.headers[ref.$ref.split('/').pop()!]! : ref;
    const value = headers.get(name);
    if (value === null) {
      if (header.required) throw new Error(`${where}: the documented header ${name} is missing`);
      continue;
    }
    if (header.schema.type === 'integer' && !/^\d+$/.test(value)) throw new Error(`${where}: header ${name} is not an integer: ${value.slice(0, 40)}`);
  }
}

function checkBody(where: string, schema: Ref | object, body: unknown): void {
  if (body === undefined) throw new Error(`${where}: documented as JSON but the body is not JSON`);
  const validate = validatorOf(schema);
  if (!validate(body)) {
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new Error(`${where}: body does not match ${'$ref' in schema ? (schema as Ref).$ref : 'its schema'}: ${problems.join('; ')}`);
  }
}
