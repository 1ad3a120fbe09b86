// The served /openapi.json and JSON Schema validation against it (ajv, draft 2020-12 as zod and
// OpenAPI 3.1 use): what the document says of a request (its parameters and body) and of an answer
// (the schema of the documented status). `#/components/...` references resolve in the document.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';

export type Json = Record<string, unknown>;
export type DocParam = { name: string; in: 'query' | 'path'; required: boolean; description?: string; schema: Json };
export type DocResponse = { description: string; content?: Record<string, { schema?: Json }> };
export type DocOperation = {
  summary: string;
  parameters: DocParam[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
  responses: Record<string, DocResponse>;
  security: Record<string, string[]>[];
};
export type OpenApiDoc = {
  openapi: string;
  paths: Record<string, Record<string, DocOperation>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
};

export async function fetchDoc(app: FastifyInstance): Promise<OpenApiDoc> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) {
    throw new Error(`/openapi.json answered ${res.statusCode}`);
  }
  return res.json() as OpenApiDoc;
}

export function operation(doc: OpenApiDoc, method: string, path: string): DocOperation {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) {
    throw new Error(`${method} ${path} is not in the document`);
  }
  return op;
}

/** Every operation of the document as [METHOD, path, operation]. */
export const operations = (doc: OpenApiDoc): [string, string, DocOperation][] =>
  Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([m, op]): [string, string, DocOperation] => [m.toUpperCase(), path, op]),
  );

const validators = new WeakMap<OpenApiDoc, Ajv2020>();

function ajvFor(doc: OpenApiDoc): Ajv2020 {
  let ajv = validators.get(doc);
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    // `#/components/schemas/Error` in a response schema resolves against this copy of the document.
    ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
    validators.set(doc, ajv);
  }
  return ajv;
}

/** Problems of `value` against `schema` ([] when valid). */
export function validate(doc: OpenApiDoc, schema: Json, value: unknown): string[] {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/');
  const fn = ajvFor(doc).compile(JSON.parse(text) as Json);
  return fn(value) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

/**
 * What the document says is wrong with a request ([] when it calls it valid): each query and path
 * parameter against its schema, required parameters present, the JSON body against its schema.
 */
export function requestProblems(
  doc: OpenApiDoc,
  op: DocOperation,
  req: { query?: Record<string, string>; params?: Record<string, string>; body?: unknown },
): string[] {
  const out: string[] = [];
  for (const p of op.parameters) {
    const v = (p.in === 'query' ? req.query : req.params)?.[p.name];
    if (v === undefined) {
      out.push(...(p.required ? [`${p.in} ${p.name} is required`] : []));
      continue;
    }
    out.push(...validate(doc, p.schema, v).map((e) => `${p.in} ${p.name}: ${e}`));
  }
  const schema = op.requestBody?.content['application/json']?.schema;
  if (schema) {
    out.push(...validate(doc, schema, req.body).map((e) => `body${e}`));
  }
  return out;
}

/** What the document says is wrong with an answer: status documented, JSON body against its schema. */
export function answerProblems(
  doc: OpenApiDoc,
  method: string,
  path: string,
  res: { statusCode: number; body: string },
): string[] {
  const r = operation(doc, method, path).responses[String(res.statusCode)];
  if (!r) {
    return [`${res.statusCode} is not documented`];
  }
  const schema = r.content?.['application/json']?.schema;
  if (!schema) {
    return res.body === '' ? [] : [`${res.statusCode} documents no JSON body`];
  }
  return validate(doc, schema, JSON.parse(res.body)).map((e) => `${res.statusCode} ${e}`);
}
