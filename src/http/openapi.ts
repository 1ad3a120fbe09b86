// OpenAPI 3.1 at /openapi.json, built from the same zod schemas that parse requests, and a
// self-contained docs page at /docs (no external assets: it works offline).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  createCampaignBodySchema,
  displayIdParamsSchema,
  editCampaignBodySchema,
  listCampaignsQuerySchema,
} from './parse/v1/campaigns.ts';

type Operation = {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  responses: Record<string, string>;
};

const AUTH_401 = (text: string) => `missing or invalid server key: \`${text}\``;

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/campaigns',
    summary: 'List campaigns',
    tag: 'campaigns',
    query: listCampaignsQuerySchema,
    responses: {
      '200': '{msg, status, data: {total_campaigns, campaigns, pagination}}',
      '400': 'invalid filter, link, domain or channel',
      '401': AUTH_401('Unauthorized access.'),
      '422': 'invalid page or limit',
      '429': 'rate limit exceeded',
    },
  },
  {
    method: 'post',
    path: '/api/v1/create-campaign',
    summary: 'Create a campaign',
    tag: 'campaigns',
    body: createCampaignBodySchema,
    responses: {
      '201': '{msg, status, data: created campaign}',
      '400': 'invalid field, unknown domain or store listing',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '429': 'rate limit exceeded',
    },
  },
  ...(['patch', 'put'] as const).map(
    (method): Operation => ({
      method,
      path: '/api/v1/campaigns/{display_id}',
      summary: method === 'patch' ? 'Edit a campaign' : 'Edit a campaign (PUT alias of PATCH)',
      tag: 'campaigns',
      params: displayIdParamsSchema,
      body: editCampaignBodySchema,
      responses: {
        '200': '{msg, status, data: campaign summary}',
        '400': 'missing display id, no field, blank name, non-boolean active',
        '401': AUTH_401('Server key missing!` or `Server key invalid!'),
        '404': '`Campaign not found!`',
        '429': 'rate limit exceeded',
      },
    }),
  ),
  {
    method: 'delete',
    path: '/api/v1/campaigns/{display_id}',
    summary: 'Delete a campaign',
    tag: 'campaigns',
    params: displayIdParamsSchema,
    responses: {
      '204': 'deleted; empty body',
      '400': '`Campaign display ID is required!`',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '404': '`Campaign not found!`',
      '429': 'rate limit exceeded',
    },
  },
];

const toJson = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

function parameters(schema: z.ZodObject | undefined, where: 'query' | 'path') {
  if (!schema) {
    return [];
  }
  const json = toJson(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: s,
  }));
}

export function buildOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    const entry = paths[op.path] as Record<string, unknown>;
    entry[op.method] = {
      summary: op.summary,
      tags: [op.tag],
      security: [{ serviceKey: [] }],
      parameters: [...parameters(op.params, 'path'), ...parameters(op.query, 'query')],
      ...(op.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toJson(op.body) } } } }
        : {}),
      responses: Object.fromEntries(Object.entries(op.responses).map(([code, description]) => [code, { description }])),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Attribution service API', version: '1' },
    components: {
      securitySchemes: {
        serviceKey: {
          type: 'apiKey',
          in: 'header',
          name: 'service-key',
          description: '`linkrunner-key` is accepted too',
        },
      },
    },
    paths,
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function docsPage(doc: Record<string, unknown>): string {
  const sections = OPERATIONS.map((op) => {
    const params = [...parameters(op.params, 'path'), ...parameters(op.query, 'query')]
      .map((p) => `<li><code>${escapeHtml(p.name)}</code> (${p.in})</li>`)
      .join('');
    const body = op.body ? `<pre>${escapeHtml(JSON.stringify(toJson(op.body), null, 2))}</pre>` : '';
    const responses = Object.entries(op.responses)
      .map(([c, d]) => `<li><b>${c}</b> ${escapeHtml(d)}</li>`)
      .join('');
    return `<section><h2>${op.method.toUpperCase()} ${escapeHtml(op.path)}</h2><p>${escapeHtml(op.summary)}</p>
      ${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ''}${body ? `<h3>Body</h3>${body}` : ''}
      <h3>Responses</h3><ul>${responses}</ul></section>`;
  }).join('\n');
  const info = doc.info as { title: string };
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}section{border-top:1px solid #ddd}</style>
</head><body><h1>${escapeHtml(info.title)}</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a>.
Authenticate with the <code>service-key</code> header.</p>${sections}</body></html>`;
}

export function registerDocsRoutes(app: FastifyInstance): void {
  const doc = buildOpenApi();
  const page = docsPage(doc);
  app.get('/openapi.json', async () => doc);
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(page));
}
