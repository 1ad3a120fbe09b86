// OpenAPI 3.1 at /openapi.json, built from the same zod schemas that parse requests, and a
// self-contained docs page at /docs (no external assets: it works offline).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { COMMERCE_OPERATIONS } from './openapi-commerce.ts';
import {
  attributionDataBodySchema,
  attributionResultQuerySchema,
  handleDeeplinkBodySchema,
  initBodySchema,
} from './parse/client/schemas.ts';
import { attributedUsersQuerySchema } from './parse/v1/attributed-users.ts';
import {
  createCampaignBodySchema,
  displayIdParamsSchema,
  editCampaignBodySchema,
  listCampaignsQuerySchema,
} from './parse/v1/campaigns.ts';
import { reportQuerySchema } from './parse/v1/reporting.ts';
import { spendBodySchema } from './parse/v1/spend.ts';

export type Operation = {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Client routes authenticate with the token in the body, not a header. */
  auth?: 'serviceKey' | 'bodyToken';
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
    method: 'get',
    path: '/api/v1/attributed-users',
    summary: "List a campaign's attributed users",
    tag: 'users',
    query: attributedUsersQuerySchema,
    responses: {
      '200': '{msg, status, data: {total_users, users, pagination}}; a start after the end gives no users',
      '400': '`Invalid timezone format.` or `Invalid timestamp format.`',
      '401': AUTH_401('Authentication failed.'),
      '404': '`Resource not found.` (no such campaign in the project)',
      '422': '`Required parameter missing.` (display_id), invalid page or limit',
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
  {
    method: 'delete',
    path: '/api/v1/users/{user_id}',
    summary:
      "Delete one user's data (GDPR): Postgres, ClickHouse raw and derived tables, caches; reports what was removed",
    tag: 'users',
    params: z.object({ user_id: z.string().min(1).max(256) }),
    responses: {
      '200': '`User data deleted successfully!`; data: removed rows per store',
      '400': '`User ID is required!`',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '404': "`User not found!` (also for another project's user)",
      '429': 'rate limit exceeded',
    },
  },
  {
    method: 'get',
    path: '/api/v1/reporting/campaigns',
    summary: 'Campaign analytics for a window (formatted strings; README "Reporting" defines every field)',
    tag: 'reporting',
    query: reportQuerySchema,
    responses: {
      '200':
        '{msg, status, data: {campaigns, pagination, display_currency, view}}; identical queries may be served from a 60 s cache',
      '400':
        'invalid date, from after to, unknown active / platform / view / sort_field / sort_order, bad meta_account_id or active_users, too many event names',
      '401': AUTH_401('Unauthorized access.'),
      '402': 'billing suspended: {msg, status, payment_link}',
      '422': 'invalid page or limit (1 to 100)',
      '429': 'rate limit exceeded (1 request per minute per server key); header Retry-After: 60',
    },
  },
  {
    method: 'get',
    path: '/api/v1/get-attribution-result',
    summary: "Attribution of a user's or a device's install (with the decision record in `match`)",
    tag: 'attribution',
    query: attributionResultQuerySchema,
    responses: {
      '200': '{msg, status, data: attribution result + match}',
      '204': 'no attribution data (empty body)',
      '400': '`Either device_identifier or user_id is required.`',
      '401': AUTH_401('Unauthorized access.'),
      '429': 'rate limit exceeded',
    },
  },
  ...(['put', 'post'] as const).map(
    (method): Operation => ({
      method,
      path: '/api/v1/spend',
      summary:
        method === 'put'
          ? 'Upsert ad spend rows (a restatement replaces the day and key)'
          : 'Upsert ad spend rows (POST alias of PUT)',
      tag: 'spend',
      body: spendBodySchema,
      responses: {
        '200': '{msg, status, data: {accepted, unchanged, rejected: [{index, reason}]}}; rejected rows are skipped',
        '400': '`rows must be an array of 1 to 10,000 spend rows.` or a body that is not a JSON object',
        '401': AUTH_401('Server key missing!` or `Server key invalid!'),
        '429': 'rate limit exceeded',
      },
    }),
  ),
  {
    method: 'post',
    path: '/api/client/init',
    summary: 'Register an install or app open; starts attribution',
    tag: 'client',
    auth: 'bodyToken',
    body: initBodySchema,
    responses: {
      '202': '{processing_id, status: "accepted", message, success: true} (stable processing_id per install)',
      '400': 'invalid or missing token, install_instance_id',
      '401': 'invalid request signature',
      '429': 'more than 25 requests per second for this token',
    },
  },
  {
    method: 'post',
    path: '/api/client/attribution-data',
    summary: 'Attribution of an install as apps parse it; poll until attribution_source is not PENDING',
    tag: 'client',
    auth: 'bodyToken',
    body: attributionDataBodySchema,
    responses: {
      '200': '{msg, status, data: {deeplink, campaign_data, attribution_source}}; final answers cached 24 h',
      '400': 'unknown install',
      '401': 'invalid token or request signature',
      '429': 'more than 25 requests per second for this token',
    },
  },
  {
    method: 'post',
    path: '/api/client/handle-deeplink',
    summary: 'Report a deeplink open (re-engagement, deferred attribution)',
    tag: 'client',
    auth: 'bodyToken',
    body: handleDeeplinkBodySchema,
    responses: {
      '200': '{msg, status, data: {deeplink, is_linkrunner, processing}}',
      '400': 'invalid or missing token, install_instance_id or deeplink_url',
      '401': 'invalid request signature',
      '429': 'more than 25 requests per second for this token',
    },
  },
  ...COMMERCE_OPERATIONS,
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
      security: op.auth === 'bodyToken' ? [] : [{ serviceKey: [] }],
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
