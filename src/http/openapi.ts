// OpenAPI 3.1 at /openapi.json, built from zod schemas: the ones that parse requests where a route
// parses with zod, documentation schemas beside the parsers elsewhere (their constraints restate
// the parsers' checks; a check JSON Schema cannot state is in the description); and a
// self-contained docs page at /docs (no external assets: it works offline).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ANALYTICS_OPERATIONS } from './openapi-analytics.ts';
import { AUDIENCE_OPERATIONS } from './openapi-audiences.ts';
import { CLIENT_OPERATIONS } from './openapi-client.ts';
import { COMMERCE_OPERATIONS } from './openapi-commerce.ts';
import { LINK_OPERATIONS, OPS_OPERATIONS } from './openapi-links.ts';
import { MCP_OPERATIONS } from './openapi-mcp.ts';
import { ERROR_ENVELOPE_JSON } from './openapi-responses.ts';
import { REVENUECAT_OPERATIONS } from './openapi-revenuecat.ts';
import { V1_OPERATIONS } from './openapi-v1.ts';
import { WEB_OPERATIONS } from './openapi-web.ts';

/**
 * A documented answer: its description, and the JSON schema of its body. Without a schema, an
 * error status (4xx, 5xx) gets the {msg, status} envelope; `html` marks an HTML page, `csv` a CSV file.
 */
export type Response = string | { description: string; schema?: z.ZodType; html?: true; csv?: true };

export type Operation = {
  method: 'get' | 'head' | 'post' | 'patch' | 'put' | 'delete' | 'options';
  path: string;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /**
   * serviceKey (the default): the `service-key` (or `linkrunner-key`) header. bodyToken: client
   * routes, the project token in the JSON body. revenueCatToken: the RevenueCat webhook, the
   * project's RevenueCat token in the Authorization header. none: links, well-known files and the
   * operations endpoints.
   */
  auth?: 'serviceKey' | 'bodyToken' | 'revenueCatToken' | 'none';
  responses: Record<string, Response>;
};

export const OPERATIONS: Operation[] = [
  ...V1_OPERATIONS,
  ...AUDIENCE_OPERATIONS,
  ...REVENUECAT_OPERATIONS,
  ...ANALYTICS_OPERATIONS,
  ...CLIENT_OPERATIONS,
  ...COMMERCE_OPERATIONS,
  ...WEB_OPERATIONS,
  ...LINK_OPERATIONS,
  ...MCP_OPERATIONS,
  ...OPS_OPERATIONS,
];

type Json = Record<string, unknown>;

/** JSON Schema of a zod schema; the dialect is the document's (OpenAPI 3.1: draft 2020-12). */
function toJson(s: z.ZodType, io: 'input' | 'output' = 'input'): Json {
  const { $schema: _dialect, ...json } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Json;
  return json;
}

function parameters(schema: z.ZodObject | undefined, where: 'query' | 'path') {
  if (!schema) {
    return [];
  }
  const json = toJson(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }));
}

const ERROR_REF = { $ref: '#/components/schemas/Error' };

const describe = (r: Response): string => (typeof r === 'string' ? r : r.description);

/** A response object: HEAD answers carry no body; errors without a schema of their own the envelope. */
function response(op: Operation, code: string, r: Response): Json {
  const description = describe(r);
  const own: Exclude<Response, string> = typeof r === 'string' ? { description } : r;
  if (op.method === 'head') {
    return { description };
  }
  if (own.schema) {
    return { description, content: { 'application/json': { schema: toJson(own.schema, 'output') } } };
  }
  if (own.html) {
    return { description, content: { 'text/html': { schema: { type: 'string' } } } };
  }
  if (own.csv) {
    return { description, content: { 'text/csv': { schema: { type: 'string' } } } };
  }
  if (Number(code) >= 400) {
    return { description, content: { 'application/json': { schema: ERROR_REF } } };
  }
  return { description };
}

// The server key goes in either header: two alternative requirements.
const SECURITY: Record<NonNullable<Operation['auth']>, unknown[]> = {
  serviceKey: [{ serviceKey: [] }, { linkrunnerKey: [] }],
  bodyToken: [],
  revenueCatToken: [{ revenueCatAuthorization: [] }],
  none: [],
};

export function buildOpenApi(): Json {
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    const entry = paths[op.path] as Json;
    entry[op.method] = {
      summary: op.summary,
      tags: [op.tag],
      security: SECURITY[op.auth ?? 'serviceKey'],
      parameters: [...parameters(op.params, 'path'), ...parameters(op.query, 'query')],
      ...(op.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toJson(op.body) } } } }
        : {}),
      responses: Object.fromEntries(Object.entries(op.responses).map(([code, r]) => [code, response(op, code, r)])),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Attribution service API', version: '1' },
    components: {
      schemas: { Error: ERROR_ENVELOPE_JSON },
      securitySchemes: {
        serviceKey: { type: 'apiKey', in: 'header', name: 'service-key', description: 'the project server key' },
        linkrunnerKey: {
          type: 'apiKey',
          in: 'header',
          name: 'linkrunner-key',
          description: 'the same server key under the header existing integrations send',
        },
        revenueCatAuthorization: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            "the project's RevenueCat token (PUT /api/v1/connections/revenuecat), bare or as `Bearer <token>`, as typed into RevenueCat",
        },
      },
    },
    paths,
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const AUTH_LABEL: Record<NonNullable<Operation['auth']>, string> = {
  serviceKey: '<code>service-key</code> (or <code>linkrunner-key</code>) header',
  bodyToken: '<code>token</code> in the JSON body',
  revenueCatToken: 'the RevenueCat token in the <code>Authorization</code> header',
  none: 'none',
};

function docsPage(doc: Record<string, unknown>): string {
  const sections = OPERATIONS.map((op) => {
    const params = [...parameters(op.params, 'path'), ...parameters(op.query, 'query')]
      .map((p) => `<li><code>${escapeHtml(p.name)}</code> (${p.in})</li>`)
      .join('');
    const body = op.body ? `<pre>${escapeHtml(JSON.stringify(toJson(op.body), null, 2))}</pre>` : '';
    const responses = Object.entries(op.responses)
      .map(([c, r]) => `<li><b>${c}</b> ${escapeHtml(describe(r))}</li>`)
      .join('');
    return `<section><h2>${op.method.toUpperCase()} ${escapeHtml(op.path)}</h2><p>${escapeHtml(op.summary)}</p>
      <p>Auth: ${AUTH_LABEL[op.auth ?? 'serviceKey']}</p>${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ''}${body ? `<h3>Body</h3>${body}` : ''}
      <h3>Responses</h3><ul>${responses}</ul></section>`;
  }).join('\n');
  const info = doc.info as { title: string };
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}section{border-top:1px solid #ddd}</style>
</head><body><h1>${escapeHtml(info.title)}</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a>.
<code>/api/v1</code> takes the server key in the <code>service-key</code> header; <code>/api/client</code> takes the
project token in the JSON body; links, well-known files and operations endpoints take nothing.</p>${sections}</body></html>`;
}

export function registerDocsRoutes(app: FastifyInstance): void {
  const doc = buildOpenApi();
  const page = docsPage(doc);
  app.get('/openapi.json', async () => doc);
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(page));
}
